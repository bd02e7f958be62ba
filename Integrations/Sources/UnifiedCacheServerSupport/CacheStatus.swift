import Synchronization
import UnifiedCache

/// What served one request's cache reads, turned into an RFC 9211 `Cache-Status` field value.
///
/// A response may be built from several reads (a dashboard of three); the field describes the least cached of
/// them, because that is what the response's freshness rests on: one read fetched means the response went to the
/// upstream. The in-memory cache is named `ucache-l1`, the fleet's shared second level `ucache-l2`; a list lists
/// the cache nearest the upstream first, as RFC 9211 orders it.
///
/// | what served it | `Cache-Status` |
/// |---|---|
/// | memory, fresh | `ucache-l1; hit` |
/// | the second level, fresh (memory missed) | `ucache-l2; hit, ucache-l1; fwd=uri-miss; stored` |
/// | memory, past its lifetime (stale-while-revalidate, stale-if-error) | `ucache-l1; hit; detail=stale` |
/// | the upstream confirmed a stored answer (304) | `ucache-l1; fwd=stale; fwd-status=304` |
/// | the upstream (both levels missed) | `ucache-l2; fwd=uri-miss, ucache-l1; fwd=uri-miss` |
/// | the upstream (no second level) | `ucache-l1; fwd=uri-miss` |
/// | a method that is never cached (POST, …) | `ucache-l1; fwd=method` |
///
/// Telling the second level from memory takes ``CacheStatusInstrumentation`` in the hub's instrumentation; without
/// it a second-level hit reads as `ucache-l1; hit`. A read that joined another request's upstream call reports what
/// that call answered (the second level's part is seen by the request that made the call).
public enum CacheStatus: Int, Comparable, Sendable {
    /// The response header's name.
    public static let fieldName = "Cache-Status"

    /// A fresh answer from the cache.
    case hit
    /// A stored answer past its lifetime, served without asking the upstream.
    case stale
    /// The upstream confirmed a stored answer with a 304.
    case revalidated
    /// The upstream's answer.
    case fetched
    /// A request whose method is never cached.
    case bypassed

    public static func < (lhs: CacheStatus, rhs: CacheStatus) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The status of a REST answer.
    public init(_ answer: DataWithSource<some Sendable>, method: CurlHTTPClient.Method) {
        switch answer.source {
        case .cache: self = .hit
        case .staleCache: self = .stale
        case .network:
            if method != .get && method != .head {
                self = .bypassed
            } else {
                self = answer.wasRevalidated ? .revalidated : .fetched
            }
        }
    }

    /// The status of a GraphQL answer.
    public init(_ result: GraphQLResult<some Sendable>) {
        switch result.source {
        case .cache: self = result.isStale ? .stale : .hit
        case .network: self = .fetched
        }
    }

    /// The field value for this status, given what the second level did during the request.
    public func fieldValue(secondLevel: CacheStatusRecorder.SecondLevelReads) -> String {
        switch self {
        case .hit:
            return secondLevel.hits > 0 ? "ucache-l2; hit, ucache-l1; fwd=uri-miss; stored" : "ucache-l1; hit"
        case .stale: return "ucache-l1; hit; detail=stale"
        case .revalidated: return "ucache-l1; fwd=stale; fwd-status=304"
        case .fetched:
            return secondLevel.misses > 0
                ? "ucache-l2; fwd=uri-miss, ucache-l1; fwd=uri-miss" : "ucache-l1; fwd=uri-miss"
        case .bypassed: return "ucache-l1; fwd=method"
        }
    }
}

/// Collects what served one request's cache reads; the middleware makes one per request and writes the header.
public final class CacheStatusRecorder: Sendable {
    /// Second-level reads seen during the request.
    public struct SecondLevelReads: Sendable, Equatable {
        public var hits = 0
        public var misses = 0
    }

    private struct State {
        var least: CacheStatus?
        var secondLevel = SecondLevelReads()
    }

    private let state = Mutex(State())

    /// The recorder of the request the current task serves, for ``CacheStatusInstrumentation``.
    @TaskLocal public static var current: CacheStatusRecorder?

    public init() {}

    /// Notes a cache read that served the request.
    public func record(_ status: CacheStatus) {
        state.withLock { state in state.least = max(state.least ?? status, status) }
    }

    /// Notes a second-level read's outcome (`hit`, `miss`, `unavailable`).
    public func recordSecondLevel(outcome: String?) {
        state.withLock { state in
            switch outcome {
            case "hit": state.secondLevel.hits += 1
            case "miss", "unavailable": state.secondLevel.misses += 1
            default: break
            }
        }
    }

    /// The least cached read so far; nil when the request read nothing through the cache.
    public var status: CacheStatus? { state.withLock { $0.least } }

    /// The `Cache-Status` value, nil when the request read nothing through the cache.
    public var fieldValue: String? {
        state.withLock { state in state.least?.fieldValue(secondLevel: state.secondLevel) }
    }
}

/// Tells the request's ``CacheStatusRecorder`` about second-level reads, so `Cache-Status` can say which level
/// answered. Add it to the hub's instrumentation (beside others with `CacheInstrumentationGroup`).
///
/// It looks up a task-local and takes a lock only at the end of a second-level read; every other operation costs
/// nothing.
public struct CacheStatusInstrumentation: CacheInstrumentation {
    public init() {}

    public func start(_ operation: CacheOperation, attributes: CacheOperationAttributes) -> CacheOperationToken {
        CacheOperationToken(operation: operation)
    }

    public func end(_ token: CacheOperationToken, attributes: CacheOperationAttributes) {
        guard token.operation == .secondLevelRead, let recorder = CacheStatusRecorder.current else { return }
        recorder.recordSecondLevel(outcome: attributes.outcome)
    }
}
