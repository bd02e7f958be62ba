import Foundation
import GraphQLCache
import RESTCache
import Synchronization
import UnifiedCache

// The UnifiedCache DocC articles' own examples (Sources/UnifiedCache/UnifiedCache.docc). Every declaration here is
// quoted in an article; edit both together.

/// Where the upstreams are, how GraphQL answers age, and the cache of your own that goes with each session; the
/// bank's entity links and account-learning paths are presets it opts into.
func bankHubConfiguration(upstream: String, templates: RenderedTemplates) -> CacheHub.Configuration {
    CacheHub.Configuration(
        restBaseURL: upstream,
        graphQLEndpoint: upstream + "/graphql",
        graphQLFreshness: GraphQLCacheConfig(
            typeTimeouts: ["Account": 60],
            fieldTimeouts: ["Account.balance": 10, "Account.availableBalance": 10]
        ),
        sessionCacheParts: [templates]
    ).withBankingPresets()
}

extension BankBFF {
    /// GET /balances/{id} in an `async throws` handler: the answer, or a `RESTCacheError` saying why not.
    func balanceOrThrow(
        sessionID: String, userID: String, token: String, accountId: String
    ) async throws(RESTCacheError) -> Balance {
        let session = session(sessionID, userID: userID, token: token)
        return try await session.rest.response(for: BalanceRequest(accountId: accountId))
    }
}

/// What a route answers when the upstream refused: its status and the bank's error code, read from the decoded
/// error body; nil for a failure that is not an upstream refusal.
func refusal(_ error: RESTCacheError) -> (status: Int, code: String)? {
    guard error.code == .httpStatus, let status = error.httpStatus else { return nil }
    return (status, error.errorBody(as: BankError.self)?.code ?? "unknown")
}

extension BankBFF {
    /// The same route in a handler that throws: the query's `data`, or a `GraphQLCacheError`.
    func balanceFromGraphQLOrThrow(
        sessionID: String, userID: String, token: String, accountId: String
    ) async throws -> Balance {
        let session = session(sessionID, userID: userID, token: token)
        let data = try await session.graphQL.data(for: AccountBalanceQuery(accountId: accountId))
        guard let account = data.account else { throw AccountNotFound(accountId: accountId) }
        return Balance(accountId: account.id, balance: account.balance, availableBalance: account.availableBalance)
    }
}

/// Feature flags are the same for every user: one copy in the shared scope, fetched without credentials.
struct FeatureFlagsRequest: RequestType {
    struct Flag: Decodable, Sendable {
        var name: String
        var enabled: Bool
    }
    typealias Response = [Flag]

    var path: String { "/api/feature-flags" }
    var cache: RequestCache? { RequestCache(key: "featureFlags.all", timeout: .seconds(300), isShared: true) }
}

/// The profile changes rarely: serve a stale copy at once for up to a minute while one refresh runs.
struct ProfileRequest: RequestType {
    struct Profile: Decodable, Sendable {
        var id: String
        var displayName: String
    }
    typealias Response = Profile

    var path: String { "/api/profile" }
    var cachePolicy: RESTCachePolicy { .staleWhileRevalidate(gracePeriod: .seconds(60)) }
    var cache: RequestCache? { RequestCache(key: "userProfile.me", timeout: .seconds(300)) }
}

/// HTML fragments rendered per user: a cache of the application's own that must go when the session does.
final class RenderedTemplates: SessionCachePart {
    let name = "renderedTemplates"
    private let fragments = Mutex<[String: [String: String]]>([:])  // session id → template name → HTML

    func store(_ html: String, template: String, sessionID: String) {
        fragments.withLock { $0[sessionID, default: [:]][template] = html }
    }

    func fragment(_ template: String, sessionID: String) -> String? {
        fragments.withLock { $0[sessionID]?[template] }
    }

    func clearAll(sessionID: String, reason: ClearReason) async throws {
        _ = fragments.withLock { $0.removeValue(forKey: sessionID) }
    }
}

/// What an operator may see of a session: keys, sizes and ages, never values or identifiers.
func operatorView(of session: CacheSession) -> (statistics: UnifiedCacheStatistics, export: String) {
    (session.cacheManager.getCacheStatistics(), session.cacheManager.exportCacheContents(redaction: .redacted))
}

/// Cache events into a logger of your choice; the store calls it outside its locks, on the request path.
func loggingObserver(_ log: @escaping @Sendable (String) -> Void) -> some CacheEventObserver {
    ClosureCacheEventObserver { event in
        switch event {
        case .cleared(let report):
            log("cache cleared: \(report)")  // scopes and accounts print as fingerprints
        case .evicted(let scope, _, let reason):
            log("cache eviction in \(scope): \(reason)")
        default:
            break
        }
    }
}
