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
/// through one half, or is never used at all, costs little. The parts are views over what the hub shares: the REST
/// service and GraphQL client are made on each access over the hub's one REST core and one GraphQL core, with the
/// session itself as their binding (scope, credentials, closed flag, GraphQL state), so the session keeps no service
/// or client between calls; the GraphQL state is made by the first stored answer, the cookie jar by the first
/// upstream call, and the jar holds a libcurl store only once an upstream set a cookie.
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
    public var id: String { key.sessionID }
    /// The verified identity the session is bound to.
    public let principal: VerifiedPrincipal
    /// The scope of the session's entries in both stores.
    public let scope: CacheScope
    /// How the hub's registry finds the session.
    let key: SessionKey
    let factory: SessionFactory
    private let state: Mutex<State>
    /// ``Flags``, read without the lock: whether the session is closed (read at the start of every request, one
    /// acquiring load) and which views were charged (so a view asked for again takes no lock).
    private let flags = Atomic<UInt8>(0)

    private enum Flags {
        /// The session ended or a view of it was closed: every view refuses work from then on.
        static let closed: UInt8 = 1 << 0
        /// Its REST view was asked for (and charged, unless the session had ended).
        static let madeREST: UInt8 = 1 << 1
        /// Its GraphQL view was asked for (and charged, unless the session had ended).
        static let madeGraphQL: UInt8 = 1 << 2
    }

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
        self.principal = principal
        self.scope = key.scope(for: principal)
        self.factory = factory
        self.state = Mutex(State(credentials: credentials))
    }

    /// REST through the cache (`perform(with:)`), with the session's current credentials: a view over the hub's
    /// REST core and this session, made on each access (keep it for a handler's calls, or ask again: both are
    /// cheap, and the session keeps no service between them).
    public var rest: APIService {
        charge(Flags.madeREST, bytes: SessionFactory.charge.rest)
        return factory.makeREST(scope: scope, binding: self)
    }

    /// GraphQL through the normalized cache (`fetch(query:)`, `perform(mutation:)`), with the session's current
    /// credentials: a view over the hub's GraphQL core and this session, made on each access.
    public var graphQL: GraphQLClient {
        charge(Flags.madeGraphQL, bytes: SessionFactory.charge.graphQL)
        return factory.makeGraphQL(scope: scope, binding: self)
    }

    /// Any `Codable & Sendable` value cached in the session's scope (get-or-set with a factory and tags), on the
    /// hub's memory budget, clears, replication bus and second level: a view made on each access.
    public var values: CachedValues {
        CachedValues(core: factory.values, scope: scope, session: self)
    }

    /// The session's upstream cookies; cleared by ``DefaultUnifiedCacheManager/clearAllCaches()``. Made when the
    /// session first talks upstream (or is asked for it); it holds a libcurl store only once an upstream set a
    /// cookie.
    public var cookieJar: CookieJar {
        state.withLock { state in jar(in: &state) }
    }

    /// The clearing methods (the seed's `UnifiedCacheManager` and `CacheManaging`): a view over the session's
    /// parts, made on each access (it holds nothing of its own).
    public var cacheManager: DefaultUnifiedCacheManager {
        factory.manager(id: id, scope: scope, graphQL: graphQL, cookieJar: cookieJar, accounts: accounts)
    }

    /// The account id/token pairs known for this session.
    public var accounts: AccountResolver {
        let (resolver, made) = state.withLock { state -> (AccountResolver, Bool) in
            if let resolver = state.parts.accounts { return (resolver, false) }
            let resolver = AccountResolver(configuration: factory.configuration.accounts, budget: factory.budget)
            state.parts.accounts = resolver
            return (resolver, chargeInLock(&state, SessionFactory.charge.accounts))
        }
        if made { factory.chargeParts(SessionFactory.charge.accounts) }
        return resolver
    }

    /// The credentials later upstream requests carry: the headers in force and the session's cookie jar.
    public var credentials: UpstreamCredentials {
        state.withLock { state in
            UpstreamCredentials(headers: state.credentials.headers, cookieJar: jar(in: &state))
        }
    }

    /// The headers in force alone (a cache hit of an answer that varies on them reads them; no jar is made).
    public var credentialHeaders: CurlHTTPClient.Headers {
        state.withLock { $0.credentials.headers }
    }

    /// Notes a view's first use and charges it to the budget unless the session already ended; later uses read
    /// one flag and take no lock.
    private func charge(_ flag: UInt8, bytes: Int) {
        guard flags.load(ordering: .relaxed) & flag == 0,
            flags.bitwiseOr(flag, ordering: .relaxed).oldValue & flag == 0
        else { return }
        let charge = state.withLock { state in chargeInLock(&state, bytes) }
        if charge {
            factory.chargeParts(bytes)
        }
    }

    /// Adds `bytes` to what the session was charged, unless it ended; whether the budget should be charged.
    private func chargeInLock(_ state: inout State, _ bytes: Int) -> Bool {
        guard !state.ended else { return false }
        state.charged += bytes
        return true
    }

    /// The session's cookie jar, made here on first need: the caller's own jar if its credentials carried one,
    /// else a new one with no libcurl store until an upstream sets a cookie (the factory charges the store when
    /// it is made, and releases it when the session ends).
    private func jar(in state: inout State) -> CookieJar {
        if let jar = state.parts.cookieJar { return jar }
        if let jar = state.credentials.cookieJar {
            state.parts.cookieJar = jar
            return jar
        }
        let jar = CookieJar(accounting: factory)
        state.parts.cookieJar = jar
        state.parts.ownsCookieJar = true
        return jar
    }

    /// The session's own second-level namespace, hashed by the first view that names an entry and kept (charged
    /// as a part): a keyed hash costs more than an L1 hit, and every REST, GraphQL and value view is made per access.
    func secondLevelNamespace(_ front: SecondLevelFront) -> SecondLevelNamespace {
        guard case .session = scope else { return front.namespace(of: scope) }
        if let known = state.withLock({ $0.parts.secondLevelNamespace }) { return known }
        let made = front.namespace(of: scope)
        let (namespace, charge) = state.withLock { state -> (SecondLevelNamespace, Bool) in
            if let known = state.parts.secondLevelNamespace { return (known, false) }
            state.parts.secondLevelNamespace = made
            return (made, chargeInLock(&state, SessionFactory.secondLevelNamespaceCharge))
        }
        if charge { factory.chargeParts(SessionFactory.secondLevelNamespaceCharge) }
        return namespace
    }

    /// The parts made so far.
    var existingParts: SessionParts {
        state.withLock { $0.parts }
    }

    /// Whether the session made anything (a session never used holds no data of the library's).
    var hasMadeParts: Bool {
        flags.load(ordering: .relaxed) & (Flags.madeREST | Flags.madeGraphQL) != 0
            || state.withLock { $0.parts.cookieJar != nil || $0.parts.accounts != nil }
    }

    /// Marks the session ended (its views refuse work from now on); returns the parts made and what they were
    /// charged.
    func markEnded() -> (parts: SessionParts, charged: Int) {
        flags.bitwiseOr(Flags.closed, ordering: .releasing)
        return state.withLock { state in
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
            return true
        }
    }
}

// The session is the binding of the REST services and GraphQL clients made over it (its `rest` and `graphQL`
// views): they read its credentials and closed flag, and keep their state in it.
extension CacheSession: RESTSessionBinding, GraphQLSessionBinding {
    /// Replaces the headers later requests carry (a token refresh through a view); the session's cookie jar stays
    /// unless `credentials` brings another.
    /// A jar the session made and now replaces is retired, and its store's charge released.
    public func updateCredentials(_ credentials: UpstreamCredentials) {
        let replaced = state.withLock { state -> CookieJar? in
            state.credentials.headers = credentials.headers
            guard let jar = credentials.cookieJar, jar !== state.parts.cookieJar else { return nil }
            let owned = state.parts.ownsCookieJar ? state.parts.cookieJar : nil
            state.parts.cookieJar = jar
            state.parts.ownsCookieJar = false
            return owned
        }
        if let replaced, replaced.retire() {
            factory.releaseCookieStore()
        }
    }

    /// Whether the session ended, or a view of it was closed.
    public var isClosed: Bool {
        flags.load(ordering: .acquiring) & Flags.closed != 0
    }

    /// Refuses all later work of the session's views (the session stays in the hub until it ends).
    public func close() {
        flags.bitwiseOr(Flags.closed, ordering: .releasing)
    }

    /// The session's GraphQL state (query timestamps, mutation marks), if a stored answer made it.
    public var clientState: GraphQLClientState? {
        state.withLock { $0.parts.graphQLState }
    }

    /// The session's GraphQL state, made on first need.
    public func clientState(orMake make: () -> GraphQLClientState) -> GraphQLClientState {
        state.withLock { state in
            if let existing = state.parts.graphQLState { return existing }
            let made = make()
            state.parts.graphQLState = made
            return made
        }
    }

    /// A successful REST answer of one of the session's services: learns account pairs (making the resolver) and
    /// applies a mutation's entity links.
    public func inspect(method: CurlHTTPClient.Method, path: String, response: CurlHTTPClient.Response) {
        factory.inspect(method: method, path: path, response: response, scope: scope) { accounts }
    }
}

extension CacheSession: CustomStringConvertible {
    public var description: String { "CacheSession(\(scope), \(principal))" }
}

/// What a session made so far, each on first use: its GraphQL state, its cookie jar and the account pairs learned
/// for it.
struct SessionParts: Sendable {
    var graphQLState: GraphQLClientState?
    var cookieJar: CookieJar?
    /// Whether the session made its jar (rather than using one its credentials brought): its store is charged.
    var ownsCookieJar = false
    var accounts: AccountResolver?
    /// The session's second-level namespace, once a view with a second level named an entry.
    var secondLevelNamespace: SecondLevelNamespace?
}
