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
    /// Records an expiry (on insert and refresh, under the stripe lock already held). Items of values replaced or
    /// removed since stay until popped; when they would outnumber the entries, the index is rebuilt from the
    /// entries (a pass paid for by the pushes that made the garbage, so O(1) amortized per push).
    mutating func indexExpiry(_ item: ExpiryItem) {
        expiryIndex.push(item)
        guard expiryIndex.count > 2 * index.count + 32 else {
            return
        }
        var live: [ExpiryItem] = []
        live.reserveCapacity(index.count)
        for handle in index.values {
            let stored = entries[handle]
            if let expiresAt = stored.entry.expiresAt {
                live.append(ExpiryItem(expiresAt: expiresAt, key: stored.key, sequence: stored.sequence))
            }
        }
        expiryIndex = MinHeap(unordered: live)
    }

    /// Removes the entries that expired at or before `cutoff`, in expiry order, by popping the index: the cost is
    /// the items popped (the entries removed and stale items), not the entries held. Counts `expirations`.
    /// Returns the removals and how many index items were examined.
    mutating func removeExpired(through cutoff: CacheInstant, budget: MemoryBudget?) -> (Removals, examined: Int) {
        var removals = Removals()
        var examined = 0
        while let item = expiryIndex.popMin(if: { $0.expiresAt <= cutoff }) {
            examined += 1
            // A stale item: the key holds another value now, or this value was refreshed to a later expiry (the
            // refresh pushed its own item).
            guard let handle = index[item.key], entries[handle].sequence == item.sequence,
                let expiresAt = entries[handle].entry.expiresAt, expiresAt <= cutoff
            else {
                continue
            }
            removals.append(remove(handle, budget: budget), reason: .expired)
        }
        counters.expirations += removals.entries.count
        return (removals, examined)
    }

    /// When the store's `ScopeDueQueue` must visit this partition, if that is earlier than it was told before:
    /// at once when the partition is empty (so a purge drops it), else at its earliest expiry. `nil` when the
    /// queue already knows (the common case: one comparison).
    mutating func takeSchedule() -> CacheInstant? {
        let wanted = index.isEmpty ? ScopeDueQueue.immediately : expiryIndex.min?.expiresAt
        guard let wanted, scheduledAt.map({ wanted < $0 }) ?? true else {
            return nil
        }
        scheduledAt = wanted
        return wanted
    }
}
