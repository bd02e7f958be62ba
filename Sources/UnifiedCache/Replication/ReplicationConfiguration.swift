/// How a ``CacheHub`` takes part in a fleet of replicas: the transport that carries clears, and the fleet secret.
///
/// Set it on ``CacheHub/Configuration/replication``; nil (the default) keeps the hub an island, which is right for a
/// BFF that runs one replica. The Redis module provides the transport (`RedisReplicationTransport`).
public struct ReplicationConfiguration: Sendable {
    /// Carries sealed clears between replicas.
    public var transport: any ReplicationTransport
    /// Names sessions on the wire and seals every message; the same on every replica of the fleet.
    public var secret: ReplicationSecret
    /// Told of link changes, gaps and rejected messages (for logs); silent when nil. Called on the transport's
    /// thread or the coordinator's task: keep it cheap.
    public var observer: (@Sendable (ReplicationEvent) -> Void)?

    /// Replication over `transport`, sealed with `secret`.
    public init(
        transport: any ReplicationTransport,
        secret: ReplicationSecret,
        observer: (@Sendable (ReplicationEvent) -> Void)? = nil
    ) {
        self.transport = transport
        self.secret = secret
        self.observer = observer
    }
}

/// Something replication did, for logs and alerts. Never carries session ids, tokens or values.
public enum ReplicationEvent: Hashable, Sendable {
    /// The link to the bus changed state.
    case linkChanged(ReplicationLinkState)
    /// The replica (re)subscribed after a time in which it may have missed messages, and dropped every local entry
    /// written before: `entries` REST entries and `records` GraphQL records.
    case droppedLocalEntriesAfterGap(entries: Int, records: Int)
    /// Another replica lost outgoing messages and asked every replica to drop its local entries.
    case droppedLocalEntriesOnRequest(entries: Int, records: Int)
    /// A payload that was not sealed with the fleet secret (or was altered) was discarded.
    case rejectedMessage
    /// This replica's outgoing queue overflowed; it asked every replica to drop its local entries.
    case droppedOutgoingMessages
}
