extension CachePartition {
    /// What the memory reclaimer takes from a scope: the entries already expired at `now` first (least recent
    /// first), then the least recently used fresh ones, until `bytes` are released or the partition is empty.
    ///
    /// Entries kept past their expiry for a policy that may still serve them stale (see
    /// ``CacheEntryMetadata/staleRetention``) are charged to the budget like any other; under pressure they are
    /// the first to go, so a longer stale window never costs a fresh entry its place. The first pass walks the
    /// scope's list from its least recent end and stops once enough is released: a scope's worth of links at most,
    /// paid only by a reclaim (the fallback behind ending whole sessions), never by a read or an insert. (An insert
    /// over the budget in a store without a primary reclaimer still evicts its own scope's least recent entries
    /// first: a walk per insert under sustained pressure would cost more than it saves.)
    mutating func evictExpiredFirst(releasing bytes: Int, at now: CacheInstant, budget: MemoryBudget?) -> Removals {
        var removals = Removals()
        var candidate = entries.leastRecent
        while removals.bytes < bytes, let handle = candidate {
            candidate = entries.moreRecent(than: handle)
            if !entries[handle].entry.isFresh(at: now) {
                removals.append(remove(handle, budget: budget), reason: .memoryBudget)
            }
        }
        while removals.bytes < bytes, let victim = entries.leastRecent {
            removals.append(remove(victim, budget: budget), reason: .memoryBudget)
        }
        counters.add(removals.entries.count, to: .evictions)
        return removals
    }
}
