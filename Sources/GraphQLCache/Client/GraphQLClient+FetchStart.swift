import CacheCore
import GraphQLLanguage

/// What the synchronous start of a typed query's fetch decided: answered from the cache (the value given through the
/// caller's `inout`), failed, or left to the rest of the fetch (the network, or a policy other than cache-first).
///
/// Not generic, so that ``GraphQLClient/fetch(query:cachePolicy:cacheTimeout:resilience:)``, inlined into its caller
/// and specialised there for the caller's `Data`, builds the answer of a hit without looking up the metadata of a
/// result generic over a type it does not know, and without an async call.
@usableFromInline
enum FetchStart {
    /// A fresh cached answer: the fetch returns it as is.
    case answered(CachedAnswer)
    /// The call failed before anything was sent.
    case failed(GraphQLCacheError)
    /// The rest of the call: ``GraphQLClient/finishFetch(_:as:)``.
    case pending(PendingFetch)
}

/// What a cached answer's result needs besides its value.
@usableFromInline
struct CachedAnswer {
    /// The time since the oldest field it reads was written.
    @usableFromInline let age: Duration
    /// The operation name and canonical variables the answer belongs to.
    @usableFromInline let queryKey: GraphQLQueryKey
}

/// A fetch that goes on after its synchronous start.
@usableFromInline
final class PendingFetch: Sendable {
    enum Route {
        /// The full policy path (``GraphQLClient/execute(_:policy:reader:resilience:)``): another policy than
        /// cache-first, or resilience options.
        case execute(GraphQLCachePolicy, CacheResilience?)
        /// Cache-first with resilience options: ``GraphQLClient/resilientCacheFirst(_:plan:resilience:reader:)``
        /// with the plan already made (the caching policy hook is asked once per call).
        case resilient(CachePlan, CacheResilience)
        /// Cache-first, the cache read done and not answering: the network (and the second level first), as
        /// `execute` goes on after its own read.
        case network(usesCache: Bool)
    }

    let request: PreparedRequest
    let route: Route

    init(_ request: PreparedRequest, route: Route) {
        self.request = request
        self.route = route
    }
}

extension PendingFetch.Route: Sendable {}

/// Where the cache-first policy goes after its synchronous part (see
/// ``GraphQLClient/startCacheFirst(_:plan:resilience:into:read:)``).
enum CacheFirstStart {
    /// A fresh cached answer, its value in the caller's `inout`.
    case answered(CacheJudgement)
    /// The cache read failed (other than by decoding): the call fails.
    case failed(GraphQLCacheError)
    /// Resilience options apply: the resilient cache-first path, with the plan already made.
    case resilient(CacheResilience)
    /// Nothing fresh cached, or the plan skips the cache: the network (and the second level first when cached).
    case network
}

extension GraphQLClient {
    /// The start of ``fetch(query:cachePolicy:cacheTimeout:resilience:)`` up to its first await: the request prepared
    /// and checked, and under the cache-first policy the same synchronous step as
    /// ``execute(_:policy:reader:resilience:)`` (``startCacheFirst(_:plan:resilience:into:read:)``), reading the store
    /// for the query's own type; a hit's value goes to `value`.
    @usableFromInline
    func startFetch<Query: GraphQLQuery>(
        _ query: Query,
        cachePolicy: GraphQLCachePolicy?,
        cacheTimeout: QueryCacheTimeout?,
        resilience callResilience: CacheResilience?,
        into value: inout Query.Data?
    ) -> FetchStart {
        let request: PreparedRequest
        do {
            request = try prepareQuery(query, explicitTimeout: cacheTimeout)
            try checkCallResilience(callResilience)
        } catch {
            return .failed(error)
        }
        let policy = cachePolicy ?? .default
        guard policy == .returnCacheDataElseFetch, !isClosed else {
            return .pending(PendingFetch(request, route: .execute(policy, callResilience)))
        }
        let plan = plan(for: request)
        let start = startCacheFirst(request, plan: plan, resilience: callResilience, into: &value) {
            (freshness, value) throws(GraphQLCacheError) in
            try store.read(
                Query.Data.self,
                operation: request.document.operation,
                variables: request.variables,
                in: scope,
                userInfo: configuration.decodingUserInfo,
                freshness: freshness,
                planAnchor: request.document,
                reportsTouched: false,
                into: &value
            )
        }
        switch start {
        case .answered(let judged):
            return .answered(CachedAnswer(age: judged.age, queryKey: request.queryKey))
        case .failed(let error):
            return .failed(error)
        case .resilient(let resilience):
            return .pending(PendingFetch(request, route: .resilient(plan, resilience)))
        case .network:
            return .pending(PendingFetch(request, route: .network(usesCache: plan.usesCache)))
        }
    }

    /// The rest of a fetch its start left pending (see ``startFetch(_:cachePolicy:cacheTimeout:resilience:into:)``).
    @usableFromInline
    func finishFetch<Value: Decodable & Sendable>(
        _ pending: PendingFetch,
        as type: Value.Type
    ) async -> Result<GraphQLResult<Value>, GraphQLCacheError> {
        switch pending.route {
        case .execute(let policy, let resilience):
            return await execute(
                pending.request, policy: policy, reader: typedReader(type), resilience: resilience)
        case .resilient(let plan, let resilience):
            return await resilientCacheFirst(
                pending.request, plan: plan, resilience: resilience, reader: typedReader(type))
        case .network(let usesCache):
            return await cacheFirstFromNetwork(pending.request, usesCache: usesCache, reader: typedReader(type))
        }
    }
}

extension GraphQLCacheError {
    /// A fetch's start said it answered without giving the value: never, as ``GraphQLClient/startFetch(_:cachePolicy:cacheTimeout:resilience:into:)``
    /// answers only with one; an error rather than a trap should that ever change.
    @usableFromInline
    static func answerWithoutValue() -> GraphQLCacheError {
        GraphQLCacheError(code: .cacheMiss, message: "The cache answered without a value.")
    }
}
