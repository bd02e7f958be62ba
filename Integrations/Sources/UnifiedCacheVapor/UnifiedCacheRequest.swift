import UnifiedCache
import UnifiedCacheServerSupport
import Vapor

extension Request {
    /// The request's side of UnifiedCache: the verified user's session, reads noted for `Cache-Status`, logout.
    ///
    /// Named `unifiedCache`, not `cache`: Vapor's `Request.cache` is its own key-value `Cache` (memory, Redis,
    /// Fluent), which an app may use beside this library, so a `cache` of ours would be ambiguous (or silently
    /// shadowed) in every file that imports both. Like Vapor's other namespaces (`req.auth`, `req.client`), it is a
    /// cheap view over the request's storage, filled by ``CacheSessionMiddleware``.
    public var unifiedCache: UnifiedCacheRequest { UnifiedCacheRequest(request: self) }
}

/// The cache part of one Vapor request (`req.unifiedCache`): the user's ``CacheSession`` and the reads that served
/// the request.
///
/// Reads through ``response(for:)``, ``data(for:)`` and ``result(for:)`` are recorded for the response's
/// `Cache-Status`; reads through ``session`` directly are served the same way but not recorded. Every member answers
/// a request the middleware found no verified user for with `Abort(.unauthorized)`.
public struct UnifiedCacheRequest: Sendable {
    struct State: Sendable {
        var hub: CacheHub
        var recorder: CacheStatusRecorder
        var identity: CacheIdentity?
        var session: CacheSession?
        var verifier: UpstreamTokenVerifier?
        var token: String?
    }

    struct StateKey: StorageKey {
        typealias Value = State
    }

    let request: Request

    private var state: State? { request.storage[StateKey.self] }

    /// The identity the middleware found; nil for an anonymous request (or a route outside the middleware).
    public var identity: CacheIdentity? { state?.identity }

    /// The session of the request's verified user, or a 401 for a request without one.
    public var session: CacheSession {
        get throws {
            guard let session = state?.session else { throw Abort(.unauthorized) }
            return session
        }
    }

    /// A REST request's answer in the user's session, noted for `Cache-Status`.
    public func response<Request: RequestType>(for request: Request) async throws -> Request.Response {
        try await session.recordedResponse(for: request, recorder: state?.recorder)
    }

    /// A GraphQL query's `data` in the user's session, noted for `Cache-Status`.
    public func data<Query: GraphQLQuery>(for query: Query) async throws -> Query.Data {
        try await result(for: query).data
    }

    /// A GraphQL query's whole answer in the user's session, noted for `Cache-Status`.
    public func result<Query: GraphQLQuery>(for query: Query) async throws -> GraphQLResult<Query.Data> {
        try await session.recordedResult(for: query, recorder: state?.recorder)
    }

    /// Logout: ends the user's session on every replica (everything of theirs cleared, answers in flight not
    /// stored) and forgets the verifier's verdict on their token, so the token is asked about again.
    @discardableResult
    public func endSession() async throws -> UnifiedClearReport? {
        guard let state, let identity = state.identity else { throw Abort(.unauthorized) }
        if let verifier = state.verifier, let token = state.token { verifier.forget(token: token) }
        return await state.hub.endSession(for: identity)
    }
}
