import HTTPTypes
import Hummingbird
import UnifiedCache
import UnifiedCacheServerSupport

/// Puts the verified user's ``CacheSession`` in the request context and sets the response's RFC 9211
/// `Cache-Status` from what served the request's cache reads (see ``CacheStatus``).
///
/// Who the user is comes from the app: a closure that returns the identity its authenticator verified (with
/// hummingbird-auth, the context's `identity`), or an ``UpstreamTokenVerifier`` that asks the upstream who a bearer
/// token belongs to. A request without an identity goes on without a session: routes that need one get a 401 from
/// ``CacheRequestState/requireSession()``.
public struct CacheSessionMiddleware<Context: CacheRequestContext>: RouterMiddleware {
    /// Returns the request's verified identity, nil for an anonymous request; throws to refuse it.
    public typealias Identify = @Sendable (Request, Context) async throws -> CacheIdentity?

    private let hub: CacheHub
    private let verifier: UpstreamTokenVerifier?
    private let identify: Identify

    /// A session for the identity `identify` returns.
    ///
    /// With hummingbird-auth's authenticator before this middleware:
    /// `CacheSessionMiddleware(hub: hub) { _, context in context.identity.map { CacheIdentity(...) } }`.
    public init(hub: CacheHub, identify: @escaping Identify) {
        self.hub = hub
        self.verifier = nil
        self.identify = identify
    }

    /// A session for the owner of the request's bearer token, as `verifier` learns it from the upstream; the
    /// session sends the same token upstream. A rejected token is a 401, an upstream that cannot say a 502; a
    /// request without an `Authorization` header is anonymous.
    public init(hub: CacheHub, verifier: UpstreamTokenVerifier) {
        self.hub = hub
        self.verifier = verifier
        self.identify = { request, _ in
            do throws(UnifiedCacheError) {
                return try await CacheIdentity.bearer(
                    authorization: request.headers[.authorization], verifier: verifier)
            } catch let error where error.code == .tokenRejected {
                throw HTTPError(.unauthorized)
            } catch {
                throw HTTPError(.badGateway)
            }
        }
    }

    public func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        let recorder = CacheStatusRecorder()
        context.cache.recorder = recorder
        context.cache.hub = hub
        if let identity = try await identify(request, context) {
            context.cache.identity = identity
            context.cache.session = hub.session(for: identity)
            if let verifier {
                context.cache.verifier = verifier
                context.cache.token = UpstreamTokenVerifier.bearerToken(request.headers[.authorization])
            }
        }
        var response = try await CacheStatusRecorder.$current.withValue(recorder) {
            try await next(request, context)
        }
        if let value = recorder.fieldValue {
            response.headers[.cacheStatus] = value
        }
        return response
    }
}

extension HTTPField.Name {
    /// RFC 9211's `Cache-Status`.
    public static var cacheStatus: HTTPField.Name { HTTPField.Name(CacheStatus.fieldName)! }
}
