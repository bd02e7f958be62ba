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
                partition.counters.networkFetches += 1
            case .deduplicatedJoin:
                partition.counters.deduplicatedJoins += 1
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
        partitions.withExistingPartition(scope) { $0.index.count } ?? 0
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

    // MARK: - Expiry cleanup

    /// Removes entries that expired at least `grace` ago, in every scope (the seeds' startup cleanup; also worth
    /// running periodically), and drops scopes left without entries so ended sessions do not linger.
    ///
    /// Entries within the grace period stay for stale-while-revalidate. Dropping an empty scope moves it to a new
    /// generation, so an insert already in flight for it may be refused (it is then simply not cached).
    @discardableResult
    public func purgeExpired(olderThan grace: Duration = .zero) -> PurgeReport {
        let now = clock.now()
        var collected: [(CacheScope, Removals)] = []
        partitions.forEachPartition { scope, partition in
            let removals = partition.removeExpired(at: now, grace: grace, budget: budget)
            if !removals.entries.isEmpty {
                collected.append((scope, removals))
            }
        }
        let dropped = partitions.detachAll { _, partition in partition.isEmpty }
        var report = PurgeReport(entries: 0, bytes: 0, droppedScopes: dropped.count)
        for (scope, removals) in collected {
            report.entries += removals.entries.count
            report.bytes += removals.bytes
            if let observer {
                emit(removals, in: scope, to: observer)
            }
        }
        return report
    }

    /// Removes the expired entries of one scope (see `purgeExpired(olderThan:)`); keeps the scope.
    @discardableResult
    public func purgeExpired(in scope: CacheScope, olderThan grace: Duration = .zero) -> PurgeReport {
        let now = clock.now()
        let removals =
            partitions.withExistingPartition(scope) { partition in
                partition.removeExpired(at: now, grace: grace, budget: budget)
            } ?? Removals()
        if let observer {
            emit(removals, in: scope, to: observer)
        }
        return PurgeReport(entries: removals.entries.count, bytes: removals.bytes, droppedScopes: 0)
    }
}

/// What `purgeExpired` removed.
public struct PurgeReport: Hashable, Sendable {
    /// Expired entries removed.
    public var entries: Int
    /// Bytes released (as charged).
    public var bytes: Int
    /// Scopes dropped because they held no entries.
    public var droppedScopes: Int

    public init(entries: Int, bytes: Int, droppedScopes: Int) {
        self.entries = entries
        self.bytes = bytes
        self.droppedScopes = droppedScopes
    }
}
