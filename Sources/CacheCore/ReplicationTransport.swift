/// The seam between a hub (UnifiedCache's `CacheHub`) and the bus that carries its clears to the other replicas of a
/// BFF fleet.
///
/// The hub is the front end: it decides what to publish, seals it (UnifiedCache's `ReplicationSecret`) and applies what
/// arrives. A transport is the back end, as a swift-log handler is to swift-log: it moves opaque sealed payloads
/// between replicas and reports whether it is connected. The Redis module implements it over Redis pub/sub; the
/// core never imports a Redis client, and a BFF that runs one replica configures no transport at all. The seam lives
/// here, below the facade, so an implementation depends on CacheCore alone; `import UnifiedCache` re-exports it.
///
/// A transport must never block the caller: ``publish(_:)`` queues and returns, I/O happens on the transport's
/// own thread, and failures show up as ``ReplicationLinkState`` changes, never as errors to the hub's callers.
public protocol ReplicationTransport: Sendable {
    /// Starts connecting and delivering. Called once by the hub, with the receiver of every payload and state
    /// change. Every payload published by any replica (this one included) is delivered to `receiver`.
    func start(receiver: any ReplicationReceiver)

    /// Queues one sealed payload for every replica. Returns at once; a payload that cannot be sent now is sent
    /// after reconnecting, or, when the queue overflows, replaced by a signal that makes every replica drop its
    /// local caches (see ``ReplicationReceiver/transportDidDropOutgoingMessages()``).
    func publish(_ payload: [UInt8])

    /// Stops the transport and releases its connections; nothing is delivered afterwards.
    func shutdown() async

    /// What telemetry may say about the bus and its publish (`db.system.name`, `db.operation.name`,
    /// `server.address`, `server.port`). Default: ``CacheBackendDescription/unknown``.
    var backend: CacheBackendDescription { get }
}

extension ReplicationTransport {
    public var backend: CacheBackendDescription { .unknown }
}

/// What a transport calls back into: the hub's replication coordinator.
///
/// Calls come from the transport's own thread, in the order the bus delivered them; implementations hand the
/// work off and return quickly.
public protocol ReplicationReceiver: Sendable {
    /// A payload published by some replica (possibly this one: the coordinator ignores its own).
    func transportDidReceive(_ payload: [UInt8])

    /// The link to the bus changed. ``ReplicationLinkState/subscribed`` after any other state means messages
    /// may have been missed: the coordinator drops local entries written before it.
    func transportDidChange(_ state: ReplicationLinkState)

    /// Outgoing payloads were dropped (the queue overflowed during an outage, or the bus kept refusing one). The
    /// coordinator publishes a request to drop every replica's local caches once the link is back.
    func transportDidDropOutgoingMessages()
}

/// Where a replica stands with the bus, for metrics, events and the missed-messages rule.
public enum ReplicationLinkState: Hashable, Sendable, CustomStringConvertible {
    /// Not connected yet, or reconnecting after a failure.
    case connecting
    /// Subscribed: every message published from now on is delivered.
    case subscribed
    /// The link failed (refused, timed out, closed); `reason` is safe to log (no secrets).
    case disconnected(reason: String)
    /// ``ReplicationTransport/shutdown()`` was called.
    case stopped

    /// The state as a log shows it: `subscribed`, `disconnected(<reason>)`, ….
    public var description: String {
        switch self {
        case .connecting: return "connecting"
        case .subscribed: return "subscribed"
        case .disconnected(let reason): return "disconnected(\(reason))"
        case .stopped: return "stopped"
        }
    }

    /// The value of the `ucache_replication_link_up` gauge: 1 when subscribed, else 0.
    public var isUp: Bool { self == .subscribed }
}
