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
/// | memory, past its lifetime: the upstream failed (fail-safe, stale-if-error) | `ucache-l1; hit; detail=stale-fail-safe` |
/// | memory, past its lifetime: the upstream was slower than the soft timeout (or stale-while-revalidate) | `ucache-l1; hit; detail=stale-soft-timeout` |
/// | memory, fresh, late in its life: one background refresh started | `ucache-l1; hit; detail=eager-refresh` |
/// | the upstream confirmed a stored answer (304) | `ucache-l1; fwd=stale; fwd-status=304` |
/// | the upstream (both levels missed) | `ucache-l2; fwd=uri-miss, ucache-l1; fwd=uri-miss` |
/// | the upstream (no second level) | `ucache-l1; fwd=uri-miss` |
/// | a method that is never cached (POST, …) | `ucache-l1; fwd=method` |
///
/// Telling the second level from memory takes ``CacheStatusInstrumentation`` in the hub's instrumentation; without
/// it a second-level hit reads as `ucache-l1; hit`. A read that joined another request's upstream call reports what
/// that call answered (the second level's part is seen by the request that made the call). Every stale detail starts
/// with `stale`, so a search for `detail=stale` finds them all.
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

    /// The field value for this status, given what the second level did during the request and why the answer
    /// was not simply a fresh entry (the resilience option that decided it, if any).
    public func fieldValue(
        secondLevel: CacheStatusRecorder.SecondLevelReads, reason: CacheStaleReason? = nil
    ) -> String {
        switch self {
        case .hit:
            if secondLevel.hits > 0 { return "ucache-l2; hit, ucache-l1; fwd=uri-miss; stored" }
            return reason == .eagerRefresh ? "ucache-l1; hit; detail=eager-refresh" : "ucache-l1; hit"
        case .stale:
            switch reason {
            case .failSafe: return "ucache-l1; hit; detail=stale-fail-safe"
            case .softTimeout: return "ucache-l1; hit; detail=stale-soft-timeout"
            case .eagerRefresh, nil: return "ucache-l1; hit; detail=stale"
            }
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
        /// Why the least cached read was answered as it was (the first reason given for that status).
        var reason: CacheStaleReason?
        var secondLevel = SecondLevelReads()
    }

    private let state = Mutex(State())

    /// The recorder of the request the current task serves, for ``CacheStatusInstrumentation``.
    @TaskLocal public static var current: CacheStatusRecorder?

    public init() {}

    /// Notes a cache read that served the request, and the resilience option that decided its answer, if any.
    public func record(_ status: CacheStatus, reason: CacheStaleReason? = nil) {
        state.withLock { state in
            guard let least = state.least, least >= status else {
                state.least = status
                state.reason = reason
                return
            }
            if least == status, state.reason == nil { state.reason = reason }
        }
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
        state.withLock { state in state.least?.fieldValue(secondLevel: state.secondLevel, reason: state.reason) }
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
