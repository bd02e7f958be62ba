extension CacheStore {
    /// The scope's counters and current sizes; zero for a scope without partition.
    public func statistics(for scope: CacheScope) -> CacheStatistics {
        partitions.withExistingPartition(scope) { $0.statistics } ?? CacheStatistics()
    }

    /// Process totals: counters of every scope ever held (cleared sessions included) and current sizes.
    public func statistics() -> CacheStatistics {
        partitions.totalStatistics()
    }

    /// Counts what the caching layers see but the store does not (upstream calls, de-duplicated joins), so one
    /// set of statistics and events covers REST and GraphQL.
    public func record(_ activity: CacheActivity, in scope: CacheScope) {
        partitions.withPartition(scope) { partition in
            switch activity {
            case .networkFetch:
                partition.counters.add(1, to: .networkFetches)
            case .deduplicatedJoin:
                partition.counters.add(1, to: .deduplicatedJoins)
            }
            if partition.isEmpty {
                schedule(scope, &partition)
            }
        }
        guard let observer else {
            return
        }
        switch activity {
        case .networkFetch(let key, let status, let duration):
            observer.cacheDidEmit(.networkCall(scope: scope, key: key, status: status, duration: duration))
        case .deduplicatedJoin(let key):
            observer.cacheDidEmit(.deduplicatedJoin(scope: scope, key: key))
        }
    }

    // MARK: - Snapshots (for export higher up)

    /// The scopes that hold a partition now (a scope gets one on first use and loses it on a whole-scope clear).
    public var scopes: [CacheScope] {
        partitions.scopes
    }

    public func entryCount(in scope: CacheScope) -> Int {
        partitions.withExistingPartition(scope) { $0.entryCount } ?? 0
    }

    /// Keys from most to least recently used.
    public func keys(in scope: CacheScope) -> [String] {
        partitions.withExistingPartition(scope) { partition in partition.snapshot.map(\.key) } ?? []
    }

    /// Entries from most to least recently used; a copy, so it can be exported without holding the lock.
    public func entries(in scope: CacheScope) -> [(key: String, entry: CacheEntry)] {
        let snapshot = partitions.withExistingPartition(scope) { $0.snapshot } ?? []
        return snapshot.map { ($0.key, $0.entry) }
    }
}
