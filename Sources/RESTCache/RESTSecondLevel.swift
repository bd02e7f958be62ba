import Foundation

/// A second level shared by every replica of a fleet, as a REST service sees it: read after a miss in memory,
/// written after an answer is stored in memory, cleared after a successful mutation.
///
/// RESTCache knows nothing of where the second level lives or how names are derived: the facade (UnifiedCache)
/// fills this in with keyed-hash names over a `SecondLevelStore`. Every method is total: trouble in the second
/// level is a miss (`RESTSecondLevelRead.unavailable`), never an error to the caller.
public protocol RESTSecondLevel: Sendable {
    /// The entry stored for `key` in `scope`, within the configured read deadline.
    func read(key: String, in scope: CacheScope) async -> RESTSecondLevelRead

    /// Queues `entry` for `key` in `scope`, stored only if the scope's second-level namespace is still at
    /// `generation` (the one the read before the upstream call returned). Returns at once.
    func write(_ entry: RESTSecondLevelEntry, key: String, in scope: CacheScope, generation: SecondLevelGeneration)

    /// A successful mutation invalidated `targets` in `scope` (in memory): remove what they name from the second
    /// level too, plus whatever the facade derives from the upstream's `response`. Returns once applied or after
    /// the store's clear deadline.
    func invalidate(
        _ targets: [InvalidationTarget], method: CurlHTTPClient.Method, path: String,
        response: CurlHTTPClient.Response, in scope: CacheScope
    ) async

    /// A value was found but could not be used (its body does not decode as the request's response type, e.g.
    /// after a deploy changed the type): counted, then treated as a miss.
    func recordUnusable(key: String, in scope: CacheScope)

    /// The store behind it, for the read's telemetry (`db.system.name`, `db.operation.name`, `server.address`).
    /// Default: ``CacheBackendDescription/unknown``.
    var backend: CacheBackendDescription { get }
}

extension RESTSecondLevel {
    public var backend: CacheBackendDescription { .unknown }
}

/// What a second-level read found, as a REST service uses it: an entry and the generation to write back with, a
/// miss with the generation an answer fetched now may be written with, or no answer (go upstream, write nothing).
public typealias RESTSecondLevelRead = SecondLevelEntryRead<RESTSecondLevelEntry>

/// One REST answer as the second level keeps it: enough to put it in memory exactly as the network answer was
/// (status, body, metadata) and to judge and revalidate its freshness on another replica.
///
/// Times are wall-clock readings: replicas share no monotonic origin. A replica computes the remaining lifetime
/// from ``expiresAt`` on its own clock's `wallClockNow()`.
public struct RESTSecondLevelEntry: Sendable, Equatable {
    /// The upstream's status (2xx: only successful answers are stored).
    public var status: Int
    /// The body as received.
    public var body: Data
    /// When the answer was stored or last revalidated, on the wall clock.
    public var storedAt: Date
    /// When it stops being fresh, on the wall clock; nil for entries that never expire.
    public var expiresAt: Date?
    /// The metadata stored in memory: the resolved timeout (`.seconds` or `.never`), validators, domains,
    /// accounts, entity keys, tags, the uplifted flag.
    public var metadata: CacheEntryMetadata

    public init(status: Int, body: Data, storedAt: Date, expiresAt: Date?, metadata: CacheEntryMetadata) {
        self.status = status
        self.body = body
        self.storedAt = storedAt
        self.expiresAt = expiresAt
        self.metadata = metadata
    }

    /// When it stops being fresh: ``expiresAt``, but never later than ``storedAt`` plus the timeout it was stored
    /// with, so a forged or corrupt expiry cannot keep it fresh longer; nil when it never expires.
    public var freshUntil: Date? {
        guard case .seconds(let seconds) = metadata.timeout else { return expiresAt }
        let byTimeout = OutsideValue.date(storedAt, advancedBy: seconds)
        return expiresAt.map { min($0, byTimeout) } ?? byTimeout
    }

    /// Fresh until ``freshUntil`` (exclusive), as in memory.
    public func isFresh(at date: Date) -> Bool {
        guard let freshUntil else { return true }
        return date < freshUntil
    }

    /// Whether the entry has lived `share` of its fresh lifetime at `date` (never, for one that never expires): an
    /// eager refresh does not take such an entry as its answer, or a hot key's replicas would copy the same aging
    /// entry to each other until it expired under them.
    public func hasLived(_ share: Double, at date: Date) -> Bool {
        guard let freshUntil else { return false }
        let lifetime = freshUntil.timeIntervalSince(storedAt)
        return lifetime > 0 && date.timeIntervalSince(storedAt) >= lifetime * share
    }

    /// Whether a replica whose wall clock reads `now` can use the entry at all: its stored-at time is a reading it
    /// can believe (`OutsideValue.isPlausible(_:near:)`). An entry from a badly wrong clock, or forged, is refused.
    public func isPlausible(at now: Date) -> Bool {
        OutsideValue.isPlausible(storedAt, near: now)
    }
}
