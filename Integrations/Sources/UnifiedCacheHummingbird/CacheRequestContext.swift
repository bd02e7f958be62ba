import Hummingbird
import UnifiedCache
import UnifiedCacheServerSupport

/// A request context that carries the user's cache session: the app's context conforms to it, and
/// ``CacheSessionMiddleware`` fills ``cache`` in.
///
/// ```swift
/// struct AppContext: CacheRequestContext {
///     var coreContext: CoreRequestContextStorage
///     var cache = CacheRequestState()
///     init(source: Source) { coreContext = .init(source: source) }
/// }
/// ```
public protocol CacheRequestContext: RequestContext {
    /// The request's session and what served its reads; empty until the middleware ran.
    var cache: CacheRequestState { get set }
}

/// The cache part of a request context: the user's ``CacheSession`` and the reads that served the request.
///
/// Reads through ``response(for:)`` and ``result(for:)`` are recorded for the response's `Cache-Status`; reads
/// through ``session`` directly are served the same way but not recorded.
public struct CacheRequestState: Sendable {
    /// The session of the request's verified user; nil for a request the middleware found no identity for.
    public internal(set) var session: CacheSession?
    var hub: CacheHub?
    var identity: CacheIdentity?
    var verifier: UpstreamTokenVerifier?
    var token: String?
    var recorder: CacheStatusRecorder?

    public init() {}

    /// The session, or a 401 for a request without a verified user.
    public func requireSession() throws -> CacheSession {
        guard let session else { throw HTTPError(.unauthorized) }
        return session
    }

    /// A REST request's answer in the user's session (a 401 without one), noted for `Cache-Status`.
    public func response<Request: RequestType>(for request: Request) async throws -> Request.Response {
        try await requireSession().recordedResponse(for: request, recorder: recorder)
    }

    /// A GraphQL query's `data` in the user's session (a 401 without one), noted for `Cache-Status`.
    public func data<Query: GraphQLQuery>(for query: Query) async throws -> Query.Data {
        try await result(for: query).data
    }

    /// A GraphQL query's whole answer in the user's session (a 401 without one), noted for `Cache-Status`.
    public func result<Query: GraphQLQuery>(for query: Query) async throws -> GraphQLResult<Query.Data> {
        try await requireSession().recordedResult(for: query, recorder: recorder)
    }

    /// Logout: ends the user's session on every replica (everything of theirs cleared, answers in flight not
    /// stored) and forgets the verifier's verdict on their token. A 401 for a request without a verified user.
    @discardableResult
    public func endSession() async throws -> UnifiedClearReport? {
        guard let hub, let identity else { throw HTTPError(.unauthorized) }
        if let verifier, let token { verifier.forget(token: token) }
        return await hub.endSession(for: identity)
    }
}
