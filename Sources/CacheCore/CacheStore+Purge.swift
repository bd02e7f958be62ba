extension CacheStore {
    /// Removes entries whose stale horizon passed at least `grace` ago, in every scope (the seeds' startup cleanup;
    /// also worth running periodically), and drops scopes left without entries so ended sessions do not linger.
    ///
    /// An entry's horizon (``CacheEntry/staleHorizon``) is its expiry, or later when it was stored with a
    /// ``CacheEntryMetadata/staleRetention``: an answer a stale-if-error or stale-while-revalidate policy may serve
    /// for an hour past expiry stays for that hour, not only for `grace`.
    ///
    /// Costs what it removes, not what the store holds: each scope keeps its expiries in a heap, and the store
    /// keeps its scopes in a ``ScopeDueQueue`` by their earliest expiry, so the purge visits only the scopes with
    /// something due (``PurgeReport/scopesVisited``) and pops only their due expiries (plus stale ones of values
    /// replaced or removed since). Scopes left empty by anything (a lookup that created the scope, a removal, a
    /// clear by domain) are due at once and dropped by the next purge; their counters move to the process totals.
    ///
    /// Entries within the grace period stay for stale reads and ETag revalidation. Dropping an empty scope moves it to a new
    /// generation, so an insert already in flight for it may be refused (it is then simply not cached). Safe to
    /// run concurrently with reads, writes, clears and other purges: each scope is visited under its stripe lock,
    /// one at a time, and events are emitted after the lock is released.
    @discardableResult
    public func purgeExpired(olderThan grace: Duration = .zero) -> PurgeReport {
        let cutoff = clock.now().advanced(by: .zero - grace)
        var report = PurgeReport(entries: 0, bytes: 0, droppedScopes: 0)
        for scope in expiryQueue.popDue(through: cutoff) {
            let visit = partitions.withExistingPartition(scope, detachingIf: \.isEmpty) { partition in
                let (removals, _) = partition.removeExpired(through: cutoff, budget: budget)
                // The queue forgot the scope when it was popped: tell it again what is left to wait for.
                partition.scheduledAt = nil
                if !partition.isEmpty, let next = partition.takeSchedule() {
                    expiryQueue.schedule(scope, at: next)
                }
                return removals
            }
            guard let (removals, detached) = visit else {
                continue  // cleared since it was scheduled
            }
            report.scopesVisited += 1
            report.entries += removals.entries.count
            report.bytes += removals.bytes
            if detached != nil {
                report.droppedScopes += 1
            }
            if let observer {
                emit(removals, in: scope, to: observer)
            }
        }
        return report
    }

    /// Removes the entries of one scope past their stale horizon (see `purgeExpired(olderThan:)`), at the cost of what it removes;
    /// keeps the scope even when it is left empty (the next `purgeExpired(olderThan:)` drops it).
    @discardableResult
    public func purgeExpired(in scope: CacheScope, olderThan grace: Duration = .zero) -> PurgeReport {
        let cutoff = clock.now().advanced(by: .zero - grace)
        let removals = partitions.withExistingPartition(scope) { partition in
            let (removals, _) = partition.removeExpired(through: cutoff, budget: budget)
            schedule(scope, &partition)
            return removals
        }
        guard let removals else {
            return PurgeReport(entries: 0, bytes: 0, droppedScopes: 0)
        }
        if let observer {
            emit(removals, in: scope, to: observer)
        }
        return PurgeReport(entries: removals.entries.count, bytes: removals.bytes, droppedScopes: 0, scopesVisited: 1)
    }

    /// Tells the expiry queue when the partition needs a purge's visit, if earlier than it was told before (an
    /// earlier expiry, or the partition became empty). Called under the stripe lock; the queue's lock is a leaf.
    func schedule(_ scope: CacheScope, _ partition: inout CachePartition) {
        if let next = partition.takeSchedule() {
            expiryQueue.schedule(scope, at: next)
        }
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
    /// Scopes the purge looked at: those with something due (or left empty), never the whole store. The measure
    /// of a purge's cost, with `entries`.
    public var scopesVisited: Int

    public init(entries: Int, bytes: Int, droppedScopes: Int, scopesVisited: Int = 0) {
        self.entries = entries
        self.bytes = bytes
        self.droppedScopes = droppedScopes
        self.scopesVisited = scopesVisited
    }
}
