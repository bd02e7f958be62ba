import CacheCore

/// The fleet's shared second level (L2) in Redis: the back end of CacheCore's `SecondLevelStore` seam.
///
/// ```swift
/// let l2 = RedisSecondLevelStore(configuration: try RedisSecondLevelConfiguration(url: "redis://:secret@redis:6379"))
/// ```
///
/// Redis I/O happens on one thread of its own, over one connection per node, fully pipelined: a read costs one
/// lock acquisition to queue it, one round trip and one resumption. On one server the round trip is three pipelined
/// commands (`GET` of the epoch and of the generation, `HMGET` of the value); on a cluster, one Lua script call
/// (`EVALSHA`). On one server, a read made while that thread sleeps with the connection idle makes its round trip on
/// the caller's thread and wakes nobody (``RedisSecondLevelConfiguration/callerWait``). Every read is answered by
/// its deadline; while Redis is down, refused or paused past the command
/// timeout, reads fail at once and writes are dropped (counted), while clears stay queued and are applied after the
/// reconnection. Callers never see an error.
///
/// Costs in Redis: a read, a write and ``clearNamespace(_:)`` are O(1) whatever the namespace holds (a namespace
/// clear moves its generation on; what it held is left to the TTL). ``clearTags(_:in:)`` is O(entries the tags
/// name). ``clearAll()`` moves the fleet epoch: O(1).
///
/// On a Redis Cluster (``RedisTopology/cluster(seeds:)``) each namespace's keys share one hash slot and every script
/// touches only the keys it declares; commands are routed by slot, `MOVED` and `ASK` are followed. While a node is
/// down, reads of its slots are misses (counted as errors) and its writes are dropped (counted); the other nodes
/// serve; a clear for it is applied when it is back, before any read of it. The fleet epoch is not read per request:
/// each store reads it with every health check (``RedisReplicationConfiguration/pingInterval``), so a
/// ``clearAll()`` made by another replica reaches this one's reads within that interval.
///
/// Run Redis with `maxmemory-policy noeviction` (or enough memory): an evicted generation key would make a cleared
/// namespace readable again.
public final class RedisSecondLevelStore: SecondLevelStore {
    private let loop: RedisSecondLevelLoop

    /// The store for this Redis; it starts connecting at once (reads fail fast until connected).
    public init(configuration: RedisSecondLevelConfiguration) {
        loop = RedisSecondLevelLoop(configuration: configuration)
        loop.start()
    }

    /// A store dropped without ``shutdown()`` stops its thread too (without waiting for it).
    deinit { loop.requestStop() }

    /// Where it connects (print its `description`, which hides the password).
    public var configuration: RedisSecondLevelConfiguration { loop.configuration }

    /// ``RedisSecondLevelConfiguration/keyPrefix``: every value is bound to it.
    public var keyPrefix: String { loop.configuration.keyPrefix }

    /// ``RedisSecondLevelConfiguration/maxValueBytes``: larger values are neither stored nor accepted on a read.
    public var maximumValueBytes: Int { loop.configuration.maxValueBytes }

    /// `redis`, the read's operation and the configured host and port (a cluster's first seed node). The operation
    /// is `BATCH` on one server (OpenTelemetry's name for several commands in one call: the read's three pipelined
    /// commands) and `EVALSHA` on a cluster (one script).
    public var backend: CacheBackendDescription {
        let connection = loop.configuration.connection
        return CacheBackendDescription(
            system: "redis", operationName: connection.topology.isCluster ? "EVALSHA" : "BATCH",
            serverAddress: connection.host, serverPort: connection.port)
    }

    public func read(_ key: SecondLevelKey, deadline: Duration) async -> SecondLevelRead {
        await loop.read(key, deadline: deadline)
    }

    /// Queues the write; the time-to-live is capped at ``RedisSecondLevelConfiguration/maxTimeToLive``. Counted as
    /// a write once Redis stored it, as dropped when over the size limit, the queue is full, Redis is unreachable
    /// or the namespace moved on.
    public func write(
        _ value: [UInt8],
        for key: SecondLevelKey,
        generation: SecondLevelGeneration,
        timeToLive: Duration,
        tags: [SecondLevelTag]
    ) {
        loop.enqueue(
            RedisSecondLevelLoop.Write(
                key: key, value: value, token: generation.token,
                timeToLiveMilliseconds: min(timeToLive, loop.configuration.maxTimeToLive).milliseconds, tags: tags))
    }

    public func clearNamespace(_ namespace: SecondLevelNamespace) async {
        await loop.clear(.namespace(namespace))
    }

    /// Deletes the values the tags' index sets name in the namespace's current generation: O(entries named).
    public func clearTags(_ tags: [SecondLevelTag], in namespace: SecondLevelNamespace) async {
        guard !tags.isEmpty else { return }
        await loop.clear(.tags(tags, namespace))
    }

    public func clearAll() async {
        await loop.clear(.all)
    }

    public func statistics() -> SecondLevelStatistics {
        loop.statistics()
    }

    /// Why the last connection failed or could not be made (refused, AUTH rejected, timed out), for an operator's
    /// log next to `statistics().isConnected`; nil before any failure. Never contains the password.
    public var lastError: RedisReplicationError? { loop.lastError }

    /// Reads whose command the caller's thread wrote itself, the loop's thread asleep (see ``RedisSecondLevelLane``).
    var laneReads: Int { loop.laneCounts.sent }

    /// Of those, the reads answered on the caller's thread, and those handed to the loop's thread.
    var laneOutcomes: (answered: Int, handedOver: Int) {
        let counts = loop.laneCounts
        return (counts.answered, counts.handedOver)
    }

    /// Whether the loop's thread sleeps with its connection lent to callers now.
    var isLent: Bool { loop.shared.withLock { $0.lane != nil } }

    /// Nodes connected, and nodes the store sends to (1 for one server; the primaries of a cluster's slot map).
    var nodes: (connected: Int, known: Int) { loop.nodes }

    /// Answers every pending read with `.unavailable(.stopped)`, closes the connection; returns once the thread is
    /// done. Clears not yet applied are abandoned.
    public func shutdown() async {
        await loop.stop()
    }
}
