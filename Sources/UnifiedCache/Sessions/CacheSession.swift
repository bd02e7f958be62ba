import CacheCore
import CurlHTTP
import GraphQLCache
import RESTCache
import Synchronization

/// Everything a BFF needs for one logged-in user, all bound to that user's scope: the REST service, the GraphQL
/// client, the upstream cookie jar and the cache manager.
///
/// Obtained from ``CacheHub/session(id:principal:credentials:)`` or ``CacheHub/session(principal:credentials:)``;
/// ended by logout (``CacheHub/endSession(id:reason:)``), idle expiry, the live-session bound or another principal
/// presenting its id, or memory reclaim. The parts are made on first use, so a session that only ever hits the cache
/// through one half, or is never used at all, costs little. The parts are light views over what the hub shares:
/// the REST service and GraphQL client are per-session handles (scope, credentials, closed flag) over the hub's
/// one REST core and one GraphQL core, and the cookie jar holds a libcurl store only once an upstream set a cookie.
///
/// A handler may still hold the session after it ended. From then on its ``rest`` and ``graphQL`` refuse work with
/// a typed error (`RESTCacheError.Code.closed` inside `API.invalidRequest`; `GraphQLCacheError.Code.closed`), also
/// when they are first used after the end: nothing is sent upstream with the ended session's credentials, nothing
/// is read, and nothing is stored in its scope, so nothing written after a logout survives it for a later session
/// with the same id and principal. An answer already in flight at the end is delivered but not stored. Clearing
/// through ``cacheManager`` keeps working (it is harmless). Ask the hub again for a live session.
public final class CacheSession: Sendable {
    /// The session's identifier as the BFF knows it (for a session obtained by principal alone, the principal's
    /// subject). Never printed: descriptions show a fingerprint.
    public let id: String
    /// The verified identity the session is bound to.
    public let principal: VerifiedPrincipal
    /// The scope of the session's entries in both stores.
    public let scope: CacheScope
    /// How the hub's registry finds the session.
    let key: SessionKey
    let factory: SessionFactory
    private let state: Mutex<State>

    private struct State: Sendable {
        var credentials: UpstreamCredentials
        var parts: SessionParts?
        /// Set when the session left the hub: parts made afterwards (by a caller still holding the session) are
        /// not charged, since nothing would release them.
        var ended = false
        /// Whether the cookie jar's libcurl store was charged (it is made when an upstream first sets a cookie).
        var cookieStoreCharged = false
    }

    init(key: SessionKey, principal: VerifiedPrincipal, credentials: UpstreamCredentials, factory: SessionFactory) {
        self.key = key
        self.id = key.sessionID
        self.principal = principal
        self.scope = key.scope(for: principal)
        self.factory = factory
        self.state = Mutex(State(credentials: credentials, parts: nil))
    }

    /// REST through the cache (`perform(with:)`), with the session's current credentials.
    public var rest: APIService { parts.rest }
    /// GraphQL through the normalized cache (`fetch(query:)`, `perform(mutation:)`), with the session's current
    /// credentials.
    public var graphQL: GraphQLClient { parts.graphQL }
    /// The session's upstream cookies; cleared by ``DefaultUnifiedCacheManager/clearAllCaches()``.
    public var cookieJar: CookieJar { parts.cookieJar }
    /// The clearing methods (the seed's `UnifiedCacheManager` and `CacheManaging`).
    public var cacheManager: DefaultUnifiedCacheManager { parts.cacheManager }
    /// The account id/token pairs known for this session.
    public var accounts: AccountResolver { parts.accounts }

    /// The credentials later upstream requests carry.
    public var credentials: UpstreamCredentials {
        state.withLock { $0.credentials }
    }

    /// The parts, made on first use (under the lock, so two first uses make one set).
    var parts: SessionParts {
        let (parts, made) = state.withLock { state -> (SessionParts, Bool) in
            if let parts = state.parts {
                return (parts, false)
            }
            let parts = factory.makeParts(
                id: id, scope: scope, credentials: state.credentials,
                onCookieStoreMade: { [weak self] in self?.cookieStoreMade() })
            if state.ended {
                // First used after its end: refused like parts that were closed when the session ended.
                parts.close()
            }
            state.parts = parts
            return (parts, !state.ended)
        }
        if made {
            factory.chargeParts()
        }
        return parts
    }

    /// The parts if they were made; nil for a session never used (which holds no data of the library's).
    var existingParts: SessionParts? {
        state.withLock { $0.parts }
    }

    /// Charges the cookie jar's store, made by the first cookie an upstream set, unless the session ended.
    private func cookieStoreMade() {
        let charge = state.withLock { state in
            guard !state.ended, !state.cookieStoreCharged else { return false }
            state.cookieStoreCharged = true
            return true
        }
        if charge { factory.chargeCookieStore() }
    }

    /// Marks the session ended; returns its parts if they were made (nil for a session never used) and whether
    /// its cookie store was charged.
    func markEnded() -> (parts: SessionParts?, cookieStoreCharged: Bool) {
        state.withLock { state in
            state.ended = true
            return (state.parts, state.cookieStoreCharged)
        }
    }

    /// Applies refreshed credentials (a new access token) when they differ from the current ones: later requests
    /// carry them, requests in flight keep what they started with, the cache and the cookie jar stay.
    ///
    /// - Returns: whether anything changed.
    func refresh(_ credentials: UpstreamCredentials) -> Bool {
        state.withLock { state in
            guard state.credentials.headers != credentials.headers else {
                return false
            }
            state.credentials.headers = credentials.headers
            if let parts = state.parts {
                let updated = UpstreamCredentials(headers: credentials.headers, cookieJar: parts.cookieJar)
                parts.rest.updateCredentials(updated)
                parts.graphQL.updateCredentials(updated)
            }
            return true
        }
    }
}

extension CacheSession: CustomStringConvertible {
    public var description: String { "CacheSession(\(scope), \(principal))" }
}

/// A session's working parts, all bound to its scope.
struct SessionParts: Sendable {
    let rest: APIService
    let graphQL: GraphQLClient
    let cookieJar: CookieJar
    let cacheManager: DefaultUnifiedCacheManager
    let accounts: AccountResolver

    /// Refuses all later work of the REST service and the GraphQL client: the session ended.
    func close() {
        rest.close()
        graphQL.close()
    }
}
