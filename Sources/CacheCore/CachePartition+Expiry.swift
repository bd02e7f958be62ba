/// One expiry in a partition's index: which value of which key expires when.
struct ExpiryItem: Comparable, Sendable {
    let expiresAt: CacheInstant
    let key: String
    /// The `StoredEntry.sequence` of the value; a replaced value has a new number, so its old item is stale.
    let sequence: UInt64

    static func < (lhs: ExpiryItem, rhs: ExpiryItem) -> Bool {
        lhs.expiresAt < rhs.expiresAt
    }

    static func == (lhs: ExpiryItem, rhs: ExpiryItem) -> Bool {
        lhs.expiresAt == rhs.expiresAt && lhs.sequence == rhs.sequence && lhs.key == rhs.key
    }
}

extension CachePartition {
    /// Records an expiry in the heap of an indexed partition (on insert and refresh, under the stripe lock already
    /// held). Items of values replaced or removed since stay until popped; when they would outnumber the entries,
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
            if let expiresAt = stored.entry.expiresAt {
                live.append(ExpiryItem(expiresAt: expiresAt, key: stored.key, sequence: stored.sequence))
            }
        }
        expiryIndex = MinHeap(unordered: live)
    }

    /// Removes the entries that expired at or before `cutoff`, in expiry order. An indexed partition pops its
    /// heap: the cost is the items popped (the entries removed and stale items), not the entries held; a small
    /// one scans its few entries. Counts `expirations`. Returns the removals and how many heap items or entries
    /// were examined.
    mutating func removeExpired(through cutoff: CacheInstant, budget: MemoryBudget?) -> (Removals, examined: Int) {
        guard isIndexed else {
            return removeExpiredByScan(through: cutoff, budget: budget)
        }
        var removals = Removals()
        var examined = 0
        while let item = expiryIndex.popMin(if: { $0.expiresAt <= cutoff }) {
            examined += 1
            // A stale item: the key holds another value now, or this value was refreshed to a later expiry (the
            // refresh pushed its own item).
            guard let handle = keyIndex.handle(for: item.key, in: entries),
                entries[handle].sequence == item.sequence,
                let expiresAt = entries[handle].entry.expiresAt, expiresAt <= cutoff
            else {
                continue
            }
            removals.append(remove(handle, budget: budget), reason: .expired)
        }
        counters.add(removals.entries.count, to: .expirations)
        return (removals, examined)
    }

    /// `removeExpired` for a small partition: the expired entries found by a scan, removed earliest first.
    private mutating func removeExpiredByScan(
        through cutoff: CacheInstant,
        budget: MemoryBudget?
    ) -> (Removals, examined: Int) {
        var removals = Removals()
        let examined = entries.count
        var due = entries.expiring(through: cutoff)
        due.sort { $0.expiresAt < $1.expiresAt }
        for (_, handle) in due {
            removals.append(remove(handle, budget: budget), reason: .expired)
        }
        counters.add(removals.entries.count, to: .expirations)
        return (removals, examined)
    }

    /// When the store's `ScopeDueQueue` must visit this partition, if that is earlier than it was told before:
    /// at once when the partition is empty (so a purge drops it), else at its earliest expiry (the heap's least
    /// item, perhaps a stale one, or found by a scan of a small partition). `nil` when the queue already knows
    /// (the common case: one comparison, or a scan of a few entries).
    mutating func takeSchedule() -> CacheInstant? {
        let wanted: CacheInstant?
        if entries.isEmpty {
            wanted = ScopeDueQueue.immediately
        } else {
            wanted = isIndexed ? expiryIndex.min?.expiresAt : entries.earliestExpiry
        }
        guard let wanted, scheduledAt.map({ wanted < $0 }) ?? true else {
            return nil
        }
        scheduledAt = wanted
        return wanted
    }
}

extension LRUList where Element == StoredEntry {
    /// The earliest expiry of the entries held, by a scan of the slab (no allocation): for small slabs.
    var earliestExpiry: CacheInstant? {
        var earliest: CacheInstant?
        for position in nodes.indices {
            if let expiresAt = nodes[position].element?.entry.expiresAt, earliest.map({ expiresAt < $0 }) ?? true {
                earliest = expiresAt
            }
        }
        return earliest
    }

    /// The entries that expire at or before `cutoff`, with their expiry, by a scan of the slab: for small slabs.
    func expiring(through cutoff: CacheInstant) -> [(expiresAt: CacheInstant, handle: Handle)] {
        var due: [(expiresAt: CacheInstant, handle: Handle)] = []
        for position in nodes.indices {
            if let expiresAt = nodes[position].element?.entry.expiresAt, expiresAt <= cutoff {
                due.append((expiresAt, Handle(index: Int32(position))))
            }
        }
        return due
    }
}
