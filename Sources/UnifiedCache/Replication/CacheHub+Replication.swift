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

    /// The replication series in Prometheus text exposition format, appended to ``CacheHub/metricsText()``.
    func prometheusText(namespace: String = "ucache") -> String {
        let statistics = statistics
        let counters: [(String, String, Int)] = [
            ("published", "Clears this replica published.", statistics.published),
            ("applied", "Clears of other replicas applied here.", statistics.applied),
            ("ignored_own", "Own messages delivered back and ignored.", statistics.ignoredOwn),
            ("unknown_session", "Messages about sessions this replica does not hold.", statistics.unknownSession),
            ("gaps_recovered", "Times local entries were dropped after (re)subscribing.", statistics.gapsRecovered),
            ("disconnections", "Times the link to the bus went down.", statistics.disconnections),
        ]
        var text = ""
        PrometheusSeries.gauge(
            "\(namespace)_replication_link_up", help: "1 when subscribed to the replication bus, else 0.",
            value: statistics.linkState.isUp ? 1 : 0, into: &text)
        PrometheusSeries.counters(prefix: "\(namespace)_replication", counters, into: &text)
        let rejected = "\(namespace)_replication_rejected_total"
        text += "# HELP \(rejected) Payloads refused (or not applied to a newer session), by reason.\n"
        text += "# TYPE \(rejected) counter\n"
        for reason in ReplicationRejection.allCases {
            text += "\(rejected){reason=\"\(reason.rawValue)\"} \(statistics.rejected(reason))\n"
        }
        return text
    }
}

extension SessionReplicationLink {
    /// A successful REST mutation of this session, with the entities the entity links said it changed.
    func publishRESTMutation(method: String, path: String, changes: [(recordKey: String, fields: [String]?)]) {
        let entities = changes.map { EntityChange(record: $0.recordKey, fields: $0.fields) }
        publish(.restMutation(method: method, path: path, entities: entities))
    }
}
