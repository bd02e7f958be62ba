import CacheCore
import GraphQLCache

extension CacheHub {
    /// What one run of ``runMaintenance()`` did.
    public struct MaintenanceReport: Hashable, Sendable {
        /// Sessions ended for being idle past the timeout.
        public var expiredSessions = 0
        /// Expired REST entries removed (past their expiry, or the end of the window a stale-serving policy keeps
        /// them for, plus the grace period).
        public var expiredEntries = 0
        /// Expired values of the value door removed (past their expiry plus the grace period).
        public var expiredValues = 0
        /// GraphQL records removed because no freshness rule can make them fresh any more and no fail-safe window
        /// can serve them.
        public var expiredRecords = 0
        /// Bytes released by the purges.
        public var bytes = 0
        /// Scopes left empty by the purges and dropped.
        public var droppedScopes = 0

        public init() {}
    }

    /// Ends idle sessions and purges expired data from both stores, at a cost proportional to what ends and
    /// what expired (never a scan of every session). The hub runs it every
    /// ``Configuration/Maintenance/interval``; tests with a `ManualCacheClock` call it after moving the clock.
    @discardableResult
    public func runMaintenance() async -> MaintenanceReport {
        var report = MaintenanceReport()
        report.expiredSessions = await expireIdleSessions()
        let grace = configuration.maintenance.expiredDataGrace
        let rest = restStore.purgeExpired(olderThan: grace)
        report.expiredEntries = rest.entries
        report.bytes += rest.bytes
        report.droppedScopes += rest.droppedScopes
        let values = valueStore.purgeExpired(olderThan: grace)
        report.expiredValues = values.entries
        report.bytes += values.bytes
        report.droppedScopes += values.droppedScopes
        // GraphQL records are kept past the rules' longest lifetime for the longest fail-safe window too.
        if let cutoff = factory.graphQLCore.recordPurgeCutoff(now: clock.now(), grace: grace) {
            let graphQL = graphQLStore.purgeRecords(writtenBefore: cutoff)
            report.expiredRecords = graphQL.records
            report.bytes += graphQL.bytes
            report.droppedScopes += graphQL.droppedScopes
        }
        return report
    }

    /// Starts the periodic maintenance task, unless the configuration turns it off.
    func startMaintenance() {
        guard let interval = configuration.maintenance.interval else { return }
        let task = Task { [weak self] in
            while !Task.isCancelled {
                try? await Task.sleep(for: interval)
                guard !Task.isCancelled, let hub = self else { return }
                await hub.runMaintenance()
            }
        }
        maintenance.withLock { $0 = task }
    }
}
