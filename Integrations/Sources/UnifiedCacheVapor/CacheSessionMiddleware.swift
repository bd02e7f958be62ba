import UnifiedCache
import UnifiedCacheServerSupport
import Vapor

/// Gives the request its verified user's ``CacheSession`` (read it through `req.unifiedCache`) and sets the
/// response's RFC 9211 `Cache-Status` from what served the request's cache reads (see `CacheStatus`).
///
/// Who the user is comes from the app: the user Vapor's authenticators logged in (`req.auth`), a closure that returns
/// the identity the app verified, or an `UpstreamTokenVerifier` that asks the upstream who a bearer token belongs to.
/// A request without an identity goes on without a session: routes that read through `req.unifiedCache` answer it
/// with a 401.
///
/// ```swift
/// let cached = app.grouped(CacheSessionMiddleware(hub: hub, verifier: verifier))
/// cached.get("me", "accounts") { req in try await req.unifiedCache.response(for: AccountsRequest()) }
/// ```
public struct CacheSessionMiddleware: AsyncMiddleware {
    /// Returns the request's verified identity, nil for an anonymous request; throws (an `Abort`) to refuse it.
    public typealias Identify = @Sendable (Request) async throws -> CacheIdentity?

    private let hub: CacheHub
    private let verifier: UpstreamTokenVerifier?
    private let identify: Identify

    /// A session for the identity `identify` returns.
    public init(hub: CacheHub, identify: @escaping Identify) {
        self.hub = hub
        self.verifier = nil
        self.identify = identify
    }

    /// A session for the user Vapor's authenticators logged in: `identity` turns the app's `User` (found with
    /// `req.auth.get(User.self)`) into the principal and the credentials the session sends upstream. Put the
    /// authenticator before this middleware; a request it did not log in is anonymous.
    public init<User: Authenticatable & Sendable>(
        hub: CacheHub, user: User.Type, identity: @escaping @Sendable (User) -> CacheIdentity
    ) {
        self.init(hub: hub) { request in request.auth.get(User.self).map(identity) }
    }

    /// A session for the owner of the request's bearer token, as `verifier` learns it from the upstream; the
    /// session sends the same token upstream. A rejected token is a 401, an upstream that cannot say a 502; a
    /// request without an `Authorization` header is anonymous.
    public init(hub: CacheHub, verifier: UpstreamTokenVerifier) {
        self.hub = hub
        self.verifier = verifier
        self.identify = { request in
            do throws(UnifiedCacheError) {
                return try await CacheIdentity.bearer(
                    authorization: request.headers.first(name: .authorization), verifier: verifier)
            } catch let error where error.code == .tokenRejected {
                throw Abort(.unauthorized)
            } catch {
                throw Abort(.badGateway)
            }
        }
    }

    public func respond(to request: Request, chainingTo next: any AsyncResponder) async throws -> Response {
        let recorder = CacheStatusRecorder()
        var state = UnifiedCacheRequest.State(hub: hub, recorder: recorder)
        if let identity = try await identify(request) {
            state.identity = identity
            state.session = hub.session(for: identity)
            if let verifier {
                state.verifier = verifier
                state.token = UpstreamTokenVerifier.bearerToken(request.headers.first(name: .authorization))
            }
        }
        request.storage[UnifiedCacheRequest.StateKey.self] = state
        let response = try await CacheStatusRecorder.$current.withValue(recorder) {
            try await next.respond(to: request)
        }
        if let value = recorder.fieldValue {
            response.headers.replaceOrAdd(name: CacheStatus.fieldName, value: value)
        }
        return response
    }
}
