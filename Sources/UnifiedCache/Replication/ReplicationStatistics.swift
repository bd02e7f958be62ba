/// Counters of a hub's replication, for metrics and tests. Process-wide; no session appears in them.
public struct ReplicationStatistics: Hashable, Sendable {
    /// The link's current state.
    public var linkState: ReplicationLinkState = .connecting
    /// Clears this replica published.
    public var published = 0
    /// Sealed messages this replica handed to the transport: as many as ``published`` without batching, fewer
    /// with it (see ``ReplicationConfiguration/maximumClearsPerMessage``).
    public var messagesSent = 0
    /// Messages of other replicas applied here.
    public var applied = 0
    /// This replica's own messages, delivered back by the bus and ignored.
    public var ignoredOwn = 0
    /// Messages about a session this replica does not hold (nothing to clear).
    public var unknownSession = 0
    /// Payloads refused, all reasons together (the sum of ``rejectedByReason``).
    public var rejected = 0
    /// Payloads refused, by reason (a reason never seen is absent).
    public var rejectedByReason: [ReplicationRejection: Int] = [:]
    /// Times the replica dropped its local entries after (re)subscribing.
    public var gapsRecovered = 0
    /// Times the link went down.
    public var disconnections = 0

    /// Payloads refused for `reason`.
    public func rejected(_ reason: ReplicationRejection) -> Int { rejectedByReason[reason] ?? 0 }

    mutating func countRejection(_ reason: ReplicationRejection) {
        rejected += 1
        rejectedByReason[reason, default: 0] += 1
    }
}
