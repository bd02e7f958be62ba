extension CacheStore: MemoryReclaimer {
    /// Evicts entries from the scopes holding the most bytes until `bytes` are released: in each scope, the
    /// expired (stale) entries first, then the least recently used fresh ones.
    ///
    /// The store is a ``MemoryReclaimerPriority/fallback`` reclaimer of its budget: asked when no primary
    /// reclaimer (a session registry ending whole sessions) freed enough. It takes one scope at a time, largest
    /// first, from a ranking made by one scan of the scopes and reused by later reclaims until every ranked scope
    /// was drained (see `ScopedPartitions.nextReclaimCandidate()`), so a run of reclaims under sustained pressure
    /// does not scan and sort every session each time. Takes one stripe lock at a time and emits the evictions
    /// after releasing it.
    public func reclaim(bytes: Int) -> Int {
        guard bytes > 0 else {
            return 0
        }
        var released = 0
        var rescanned = false
        while released < bytes {
            guard let scope = partitions.nextReclaimCandidate() else {
                guard !rescanned else {
                    break
                }
                rescanned = true
                partitions.rankForReclaim { $0.byteCount }
                continue
            }
            let wanted = bytes - released
            let now = clock.now()
            let removals = partitions.withExistingPartition(scope) { partition in
                let removals = partition.evictExpiredFirst(releasing: wanted, at: now, budget: budget)
                schedule(scope, &partition)
                return removals
            }
            let freed = removals?.bytes ?? 0
            if freed < wanted {
                partitions.reclaimDrained(scope)
            }
            released += freed
            if let removals, let observer {
                emit(removals, in: scope, to: observer)
            }
        }
        return released
    }
}
