/// The seam between the caches and an optional second level shared by every replica of a fleet.
///
/// A replica that misses in its own memory (L1) asks the second level (L2) before the upstream, so a new or
/// restarted replica starts warm and a user's data is fetched once per fleet, not once per replica. The caches are
/// the front end: they decide what may be stored, derive the (keyed-hash) names, serialize entries and judge
/// freshness on the injected clock. A store is the back end, as a swift-log handler is to swift-log: it keeps opaque
/// bytes under opaque names. The Redis module implements it (`RedisSecondLevelStore`); CacheCore never imports a
/// Redis client.
///
/// Rules every implementation keeps:
/// - **Never an error to a caller.** A read that fails or passes its deadline is ``SecondLevelRead/unavailable(_:)``,
///   which the caches treat as a miss. Writes and clears queue and return; their failures are counted.
/// - **Generations.** Every namespace (one per session, one for shared entries) has a generation kept in the
///   store. A read returns the generation it saw; a write carries it and is dropped if the namespace has moved on
///   since, so an answer started before a clear on any replica is never stored under the new generation.
///   ``clearNamespace(_:)`` moves the generation on: one command, whatever the namespace holds; what it held
///   becomes unreachable and is left to the store's time-to-live.
/// - **Bounded.** Queues of pending writes are bounded (an overflowing write is dropped and counted); values over
///   the store's size limit are not stored.
public protocol SecondLevelStore: Sendable {
    /// The value stored under `key` in the namespace's current generation, in one round trip, or
    /// ``SecondLevelRead/unavailable(_:)`` when the store cannot answer within `deadline`.
    func read(_ key: SecondLevelKey, deadline: Duration) async -> SecondLevelRead

    /// Queues `value` under `key`, kept by the store for `timeToLive` (garbage collection only: freshness is
    /// judged by the caches from what they serialized into `value`) and indexed under `tags` for
    /// ``clearTags(_:in:)``. Stored only if the namespace is still at `generation`. Returns at once.
    func write(
        _ value: [UInt8],
        for key: SecondLevelKey,
        generation: SecondLevelGeneration,
        timeToLive: Duration,
        tags: [SecondLevelTag]
    )

    /// Moves the namespace to a new generation, so nothing written before is read again. Returns once the store
    /// has applied it, or after its clear deadline with the clear still queued (it is retried until applied).
    func clearNamespace(_ namespace: SecondLevelNamespace) async

    /// Removes the entries of the namespace's current generation indexed under any of `tags`. Returns as
    /// ``clearNamespace(_:)`` does.
    func clearTags(_ tags: [SecondLevelTag], in namespace: SecondLevelNamespace) async

    /// Moves every namespace to a new generation at once (a fleet-wide drop, e.g. after lost clears). Returns as
    /// ``clearNamespace(_:)`` does.
    func clearAll() async

    /// Counters and latencies for metrics.
    func statistics() -> SecondLevelStatistics

    /// Stops the store's I/O; reads answer ``SecondLevelRead/unavailable(_:)`` afterwards.
    func shutdown() async

    /// What tells this store's keys apart from another's in the same back end (for Redis, the key prefix). The
    /// caches bind every value they seal to it, so a value copied between two fleets' prefixes does not open.
    var keyPrefix: String { get }

    /// The largest value the store keeps. A read that returns more was not written by a replica: the caches refuse
    /// it before any decryption or decoding.
    var maximumValueBytes: Int { get }

    /// What telemetry may say about the store and its read (`db.system.name`, `db.operation.name`,
    /// `server.address`, `server.port`). Default: ``CacheBackendDescription/unknown``.
    var backend: CacheBackendDescription { get }
}

extension SecondLevelStore {
    public var backend: CacheBackendDescription { .unknown }
}

/// A namespace of the second level: one per session (derived from its scope) or the shared one. Opaque to the
/// store; the caches build it from a keyed hash, so it never carries a raw session id or principal.
public struct SecondLevelNamespace: Hashable, Sendable, CustomStringConvertible {
    /// The name as the store uses it (a keyed-hash fingerprint, hex or base64url).
    public var name: String

    public init(_ name: String) { self.name = name }

    public var description: String { name }
}

/// Where one entry lives: its namespace and its name in it (a keyed hash of the cache key).
public struct SecondLevelKey: Hashable, Sendable, CustomStringConvertible {
    public var namespace: SecondLevelNamespace
    /// The entry's name in the namespace (a keyed-hash fingerprint of the cache key).
    public var name: String

    public init(namespace: SecondLevelNamespace, name: String) {
        self.namespace = namespace
        self.name = name
    }

    public var description: String { "\(namespace.name)/\(name)" }
}

/// A label an entry is indexed under so that a feature, account or entity clear can remove it (a keyed hash of
/// the domain, account or record name).
public struct SecondLevelTag: Hashable, Sendable, CustomStringConvertible {
    public var name: String

    public init(_ name: String) { self.name = name }

    public var description: String { name }
}

/// The generation a read saw, carried by the write of the answer that read was for. Opaque to the caches.
public struct SecondLevelGeneration: Hashable, Sendable {
    /// The store's encoding of the generation (for Redis: the fleet epoch and the namespace generation).
    public var token: String

    public init(token: String) { self.token = token }
}

/// What a second-level read found.
public enum SecondLevelRead: Sendable, Equatable {
    /// The value stored under the key in `generation`.
    case hit([UInt8], generation: SecondLevelGeneration)
    /// Nothing under the key in `generation`; an answer fetched now may be written with it.
    case miss(generation: SecondLevelGeneration)
    /// The store could not answer; the caches go to the upstream and write nothing back for this read.
    case unavailable(SecondLevelFailure)
}

/// Why a second-level read had no answer.
public enum SecondLevelFailure: String, Sendable, Hashable {
    /// The read's deadline passed first.
    case timeout
    /// The store is disconnected, refused the command, or answered something unreadable.
    case error
    /// The store was shut down.
    case stopped
}

/// What a second-level store counted since it started.
public struct SecondLevelStatistics: Sendable, Equatable {
    /// Reads that found a value.
    public var hits = 0
    /// Reads that found nothing.
    public var misses = 0
    /// Reads that failed (disconnected, refused, unreadable answer).
    public var errors = 0
    /// Reads that passed their deadline.
    public var timeouts = 0
    /// Writes sent to the store.
    public var writes = 0
    /// Writes dropped: queue full, value over the size limit, or the store unavailable.
    public var droppedWrites = 0
    /// Namespace, tag and fleet-wide clears applied by the store.
    public var clears = 0
    /// Bytes of values read from the store (hits).
    public var bytesRead = 0
    /// Bytes of values sent to the store.
    public var bytesWritten = 0
    /// Sum of the read latencies of answered reads, in nanoseconds (with ``answeredReads``, the mean).
    public var readLatencyNanoseconds: Int64 = 0
    /// Reads that were answered (hits and misses), for the mean latency.
    public var answeredReads = 0
    /// Whether the store is connected now.
    public var isConnected = false

    public init() {}
}
