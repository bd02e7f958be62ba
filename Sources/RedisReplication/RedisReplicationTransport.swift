import CacheCore

/// Carries a hub's clears to the other replicas over Redis pub/sub: the back end of UnifiedCache's
/// `ReplicationTransport` seam.
///
/// ```swift
/// let redis = try RedisReplicationConfiguration(url: "redis://:secret@redis:6379")
/// var configuration = CacheHub.Configuration(restBaseURL: …, graphQLEndpoint: …)
/// configuration.replication = ReplicationConfiguration(
///     transport: RedisReplicationTransport(configuration: redis),
///     secret: try ReplicationSecret(environment: ProcessInfo.processInfo.environment)!)
/// ```
///
/// All Redis I/O happens on one thread of its own (poll() over both connections and a wake-up pipe); publishing
/// from a request only appends to a queue. When Redis is refused, down, slow or paused, callers see no error: the
/// link reports `disconnected`, reconnects with exponential backoff (50 ms doubling to 2 s, jittered), keeps
/// outgoing clears queued (up to ``RedisReplicationConfiguration/outboxLimit``) and re-sends those not
/// acknowledged. On every (re)subscription the hub drops its local entries written before, since messages may
/// have been missed.
public final class RedisReplicationTransport: ReplicationTransport {
    private let loop: RedisPubSubLoop

    /// The transport for this Redis; it connects when the hub starts it.
    public init(configuration: RedisReplicationConfiguration) {
        loop = RedisPubSubLoop(configuration: configuration)
    }

    /// Where it connects (the password redacted).
    public var configuration: RedisReplicationConfiguration { loop.configuration }

    /// `redis`, the publish's command (`PUBLISH`) and the configured host and port (a cluster's first seed node).
    public var backend: CacheBackendDescription {
        CacheBackendDescription(
            system: "redis", operationName: "PUBLISH", serverAddress: configuration.host, serverPort: configuration.port
        )
    }

    /// Starts the event-loop thread, which connects, subscribes and reports to `receiver`.
    public func start(receiver: any ReplicationReceiver) {
        loop.start(receiver: receiver)
    }

    /// Queues `payload` and wakes the event loop; never blocks on Redis.
    public func publish(_ payload: [UInt8]) {
        loop.publish(payload)
    }

    /// Stops the event loop and closes both connections; returns once the thread is done.
    public func shutdown() async {
        await loop.stop()
    }
}
