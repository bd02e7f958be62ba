/// One entry in a partition's purge index: which value of which key may be purged from when (its
/// ``CacheEntry/staleHorizon``: its expiry, or later when a policy may still serve it stale).
struct ExpiryItem: Comparable, Sendable {
    let horizon: CacheInstant
    let key: String
    /// The `StoredEntry.sequence` of the value; a replaced value has a new number, so its old item is stale.
    let sequence: UInt64

    static func < (lhs: ExpiryItem, rhs: ExpiryItem) -> Bool {
        lhs.horizon < rhs.horizon
    }

    static func == (lhs: ExpiryItem, rhs: ExpiryItem) -> Bool {
        lhs.horizon == rhs.horizon && lhs.sequence == rhs.sequence && lhs.key == rhs.key
    }
}

extension CachePartition {
    /// Records a purge horizon in the heap of an indexed partition (on insert and refresh, under the stripe lock
    /// already held). Items of values replaced or removed since stay until popped; when they would outnumber the entries,
    /// the heap is rebuilt from the entries (a pass paid for by the pushes that made the garbage, so O(1)
    /// amortized per push).
    mutating func indexExpiry(_ item: ExpiryItem) {
        expiryIndex.push(item)
        guard expiryIndex.count > 2 * entries.count + 32 else {
            return
        }
        rebuildExpiryIndex()
    }

    /// Makes the expiry heap anew from the entries held: one item per expiring entry, no stale ones.
    mutating func rebuildExpiryIndex() {
        var live: [ExpiryItem] = []
        live.reserveCapacity(entries.count)
        for handle in entries.handlesFromMostRecent {
            let stored = entries[handle]
            if let horizon = stored.entry.staleHorizon {
                live.append(ExpiryItem(horizon: horizon, key: stored.key, sequence: stored.sequence))
            }
        }
        expiryIndex = MinHeap(unordered: live)
    }

    /// Removes the entries whose stale horizon (their expiry, or later with a stale retention) is at or before
    /// `cutoff`, earliest first. An indexed partition pops its
    /// heap: the cost is the items popped (the entries removed and stale items), not the entries held; a small
    /// one scans its few entries. Counts `expirations`. Returns the removals and how many heap items or entries
    /// were examined.
    mutating func removeExpired(through cutoff: CacheInstant, budget: MemoryBudget?) -> (Removals, examined: Int) {
        guard isIndexed else {
            return removeExpiredByScan(through: cutoff, budget: budget)
        }
        var removals = Removals()
        var examined = 0
        while let item = expiryIndex.popMin(if: { $0.horizon <= cutoff }) {
            examined += 1
            // A stale item: the key holds another value now, or this value was refreshed to a later expiry (the
            // refresh pushed its own item).
            guard let handle = keyIndex.handle(for: item.key, in: entries),
                entries[handle].sequence == item.sequence,
                let horizon = entries[handle].entry.staleHorizon, horizon <= cutoff
            else {
                continue
            }
            removals.append(remove(handle, budget: budget), reason: .expired)
        }
        counters.add(removals.entries.count, to: .expirations)
        return (removals, examined)
    }

    /// `removeExpired` for a small partition: the entries past their horizon found by a scan, earliest first.
    private mutating func removeExpiredByScan(
        through cutoff: CacheInstant,
        budget: MemoryBudget?
    ) -> (Removals, examined: Int) {
        var removals = Removals()
        let examined = entries.count
        var due = entries.pastHorizon(through: cutoff)
        due.sort { $0.horizon < $1.horizon }
        for (_, handle) in due {
            removals.append(remove(handle, budget: budget), reason: .expired)
        }
        counters.add(removals.entries.count, to: .expirations)
        return (removals, examined)
    }

    /// When the store's `ScopeDueQueue` must visit this partition, if that is earlier than it was told before:
    /// at once when the partition is empty (so a purge drops it), else at its earliest stale horizon (the heap's
    /// least item, perhaps a stale one, or found by a scan of a small partition). `nil` when the queue already knows
    /// (the common case: one comparison, or a scan of a few entries).
    mutating func takeSchedule() -> CacheInstant? {
        let wanted: CacheInstant?
        if entries.isEmpty {
            wanted = ScopeDueQueue.immediately
        } else {
            wanted = isIndexed ? expiryIndex.min?.horizon : entries.earliestHorizon
        }
        guard let wanted, scheduledAt.map({ wanted < $0 }) ?? true else {
            return nil
        }
        scheduledAt = wanted
        return wanted
    }
}

extension LRUList where Element == StoredEntry {
    /// The earliest stale horizon of the entries held, by a scan of the slab (no allocation): for small slabs.
    var earliestHorizon: CacheInstant? {
        var earliest: CacheInstant?
        for position in nodes.indices {
            if let horizon = nodes[position].element?.entry.staleHorizon, earliest.map({ horizon < $0 }) ?? true {
                earliest = horizon
            }
        }
        return earliest
    }

    /// The entries whose stale horizon is at or before `cutoff`, with it, by a scan of the slab: for small slabs.
    func pastHorizon(through cutoff: CacheInstant) -> [(horizon: CacheInstant, handle: Handle)] {
        var due: [(horizon: CacheInstant, handle: Handle)] = []
        for position in nodes.indices {
            if let horizon = nodes[position].element?.entry.staleHorizon, horizon <= cutoff {
                due.append((horizon, Handle(index: Int32(position))))
            }
        }
        return due
    }
}
