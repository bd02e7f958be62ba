extension CacheStore: MemoryReclaimer {
    /// Evicts least recently used entries from the scopes holding the most bytes until `bytes` are released.
    ///
    /// Called by the `MemoryBudget` when the process is over its limit, after the inserting scope already gave
    /// up what it could. Scans the scopes' sizes once (rare, only under memory pressure), then takes one scope at
    /// a time, largest first.
    public func reclaim(bytes: Int) -> Int {
        guard bytes > 0 else {
            return 0
        }
        var sizes: [(scope: CacheScope, bytes: Int)] = []
        partitions.forEachPartition { scope, partition in
            if partition.byteCount > 0 {
                sizes.append((scope, partition.byteCount))
            }
        }
        sizes.sort { $0.bytes > $1.bytes }
        var released = 0
        for (scope, _) in sizes where released < bytes {
            let wanted = bytes - released
            let removals = partitions.withExistingPartition(scope) { partition in
                partition.evictLeastRecent(releasing: wanted, budget: budget)
            }
            guard let removals else {
                continue
            }
            released += removals.bytes
            if let observer {
                emit(removals, in: scope, to: observer)
            }
        }
        return released
    }
}
