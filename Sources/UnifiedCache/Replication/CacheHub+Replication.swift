import CacheCore

extension CacheHub {
    /// Replication counters and the link state; nil when the hub has no ``Configuration/replication``.
    public var replicationStatistics: ReplicationStatistics? { replication?.statistics }
}

extension ReplicationCoordinator {
    /// One message for a settings reload that cleared `domains` in every live session: the receivers clear them in
    /// every session they hold (which are not the sender's sessions).
    func publishSettingsClear(_ domains: [String], reason: ClearReason) {
        guard !domains.isEmpty else { return }
        publish(.domainsInEverySession(names: domains.sorted(), reason: reason.replicatedName), session: nil)
    }

    /// The replication families, appended to ``CacheHub/metricFamilies()``; rejection reasons in snake_case.
    func metricFamilies(namespace: String = "ucache") -> [CacheMetricFamily] {
        let statistics = statistics
        let counters: [(String, String, Int)] = [
            ("published", "Clears this replica published.", statistics.published),
            ("applied", "Clears of other replicas applied here.", statistics.applied),
            ("ignored_own", "Own messages delivered back and ignored.", statistics.ignoredOwn),
            ("unknown_session", "Messages about sessions this replica does not hold.", statistics.unknownSession),
            ("gaps_recovered", "Times local entries were dropped after (re)subscribing.", statistics.gapsRecovered),
            ("disconnections", "Times the link to the bus went down.", statistics.disconnections),
        ]
        var families: [CacheMetricFamily] = [
            .single(
                "\(namespace)_replication_link_up", help: "1 when subscribed to the replication bus, else 0.",
                kind: .gauge, value: statistics.linkState.isUp ? 1 : 0)
        ]
        families += CacheMetricFamily.counters(prefix: "\(namespace)_replication", counters)
        families.append(
            .byReason(
                "\(namespace)_replication_rejected_total",
                help: "Payloads refused (or not applied to a newer session), by reason.",
                ReplicationRejection.allCases.map { ($0.rawValue, statistics.rejected($0)) }))
        return families
    }
}

extension SessionReplicationLink {
    /// A successful REST mutation of this session, with the entities the entity links said it changed.
    func publishRESTMutation(method: String, path: String, changes: [(recordKey: String, fields: [String]?)]) {
        let entities = changes.map { EntityChange(record: $0.recordKey, fields: $0.fields) }
        publish(.restMutation(method: method, path: path, entities: entities))
    }
}
