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
        var parts = SessionParts()
        /// Set when the session left the hub: parts made afterwards (by a caller still holding the session) are
        /// not charged, since nothing would release them.
        var ended = false
        /// What the budget was charged for the parts made so far (the session's own cost aside).
        var charged = 0
    }

    init(key: SessionKey, principal: VerifiedPrincipal, credentials: UpstreamCredentials, factory: SessionFactory) {
        self.key = key
        self.id = key.sessionID
        self.principal = principal
        self.scope = key.scope(for: principal)
        self.factory = factory
        self.state = Mutex(State(credentials: credentials))
    }

    /// REST through the cache (`perform(with:)`), with the session's current credentials.
    public var rest: APIService {
        make(\.rest, bytes: SessionFactory.charge.rest) { state in
            factory.makeREST(scope: scope, credentials: credentials(in: &state), session: self)
        }
    }

    /// GraphQL through the normalized cache (`fetch(query:)`, `perform(mutation:)`), with the session's current
    /// credentials.
    public var graphQL: GraphQLClient {
        make(\.graphQL, bytes: SessionFactory.charge.graphQL) { state in
            factory.makeGraphQL(scope: scope, credentials: credentials(in: &state))
        }
    }

    /// The session's upstream cookies; cleared by ``DefaultUnifiedCacheManager/clearAllCaches()``. The jar holds a
    /// libcurl store only once an upstream set a cookie.
    public var cookieJar: CookieJar {
        state.withLock { state in
            _ = credentials(in: &state)
            return state.parts.cookieJar ?? CookieJar()
        }
    }

    /// The clearing methods (the seed's `UnifiedCacheManager` and `CacheManaging`): a view over the session's
    /// parts, made on each access (it holds nothing of its own).
    public var cacheManager: DefaultUnifiedCacheManager {
        factory.manager(id: id, scope: scope, graphQL: graphQL, cookieJar: cookieJar, accounts: accounts)
    }

    /// The account id/token pairs known for this session.
    public var accounts: AccountResolver {
        make(\.accounts, bytes: SessionFactory.charge.accounts) { _ in
            AccountResolver(configuration: factory.configuration.accounts)
        }
    }

    /// The credentials later upstream requests carry.
    public var credentials: UpstreamCredentials {
        state.withLock { $0.credentials }
    }

    /// A part, made on first use under the lock (so two first uses make one) and charged to the budget unless the
    /// session already ended; a part first made after the end is refused like the parts closed at the end.
    private func make<Part: Sendable>(
        _ path: WritableKeyPath<SessionParts, Part?>, bytes: Int, _ build: (inout State) -> Part
    ) -> Part {
        let (part, charge) = state.withLock { state -> (Part, Bool) in
            if let part = state.parts[keyPath: path] {
                return (part, false)
            }
            let part = build(&state)
            state.parts[keyPath: path] = part
            if state.ended {
                state.parts.close()
            } else {
                state.charged += bytes
            }
            return (part, !state.ended)
        }
        if charge {
            factory.chargeParts(bytes)
        }
        return part
    }

    /// The credentials the session's parts send, with its cookie jar (made here on first use: a few bytes, with no
    /// libcurl store until an upstream sets a cookie).
    private func credentials(in state: inout State) -> UpstreamCredentials {
        if state.parts.cookieJar == nil {
            state.parts.cookieJar =
                state.credentials.cookieJar ?? CookieJar(onStoreMade: { [weak self] in self?.cookieStoreMade() })
        }
        return UpstreamCredentials(headers: state.credentials.headers, cookieJar: state.parts.cookieJar)
    }

    /// The parts made so far.
    var existingParts: SessionParts {
        state.withLock { $0.parts }
    }

    /// Charges the cookie jar's store, made by the first cookie an upstream set, unless the session ended.
    private func cookieStoreMade() {
        let charge = state.withLock { state in
            guard !state.ended else { return false }
            state.charged += SessionFactory.charge.cookieStore
            return true
        }
        if charge { factory.chargeParts(SessionFactory.charge.cookieStore) }
    }

    /// A session's successful REST answer: learns account pairs (making the resolver) and applies a mutation's
    /// entity links.
    func inspect(method: CurlHTTPClient.Method, path: String, response: CurlHTTPClient.Response) {
        factory.inspect(method: method, path: path, response: response, scope: scope) { accounts }
    }

    /// Marks the session ended; returns the parts made (their REST service and GraphQL client are closed by the
    /// caller) and what they were charged.
    func markEnded() -> (parts: SessionParts, charged: Int) {
        state.withLock { state in
            state.ended = true
            return (state.parts, state.charged)
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
            let updated = UpstreamCredentials(headers: credentials.headers, cookieJar: state.parts.cookieJar)
            state.parts.rest?.updateCredentials(updated)
            state.parts.graphQL?.updateCredentials(updated)
            return true
        }
    }
}

extension CacheSession: CustomStringConvertible {
    public var description: String { "CacheSession(\(scope), \(principal))" }
}

/// A session's working parts, each made on first use: handles over the hub's REST and GraphQL cores, the cookie
/// jar and the account pairs learned for the session.
struct SessionParts: Sendable {
    var rest: APIService?
    var graphQL: GraphQLClient?
    var cookieJar: CookieJar?
    var accounts: AccountResolver?

    /// Whether nothing was made (a session never used holds no data of the library's).
    var isEmpty: Bool { rest == nil && graphQL == nil && cookieJar == nil && accounts == nil }

    /// Refuses all later work of the REST service and the GraphQL client: the session ended.
    func close() {
        rest?.close()
        graphQL?.close()
    }
}
