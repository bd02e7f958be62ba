import Foundation
import RESTCache

// MIGRATION.md, step 1: REST only. Every declaration here is quoted in MIGRATION.md; edit both together.

/// The balance route's answer.
struct Balance: Decodable, Sendable, Equatable {
    var accountId: String
    var balance: Double
    var availableBalance: Double
}

/// The upstream's error body, decoded for error statuses.
struct BankError: Decodable, Sendable, Equatable {
    var error: String
    var code: String
}

struct BalanceRequest: RequestType {
    typealias Response = Balance
    typealias ErrorBody = BankError

    let accountId: String
    var cachePolicy: RESTCachePolicy = .cacheFirst  // new and optional: the default is cache-first, as before
    var path: String { "/api/accounts/\(accountId)/balance" }
    var cache: Cache? {
        Cache(key: "balances.\(accountId)", timeout: .seconds(300), isUpliftedCache: false, accountIds: [accountId])
    }

    struct Cache: Cacheable {
        let key: String  // "balances.101": the "balances." prefix puts it in the balances domain
        let timeout: Timeout  // .seconds(300) or .never as before; .useDefault is new
        let isUpliftedCache: Bool
        var accountIds: Set<String> = []  // new and optional: lets clearCache(forAccountId:) find the entry
    }
}

/// What a REST-only backend holds for the whole process, and what it makes per session.
final class RESTOnlyBackend: Sendable {
    let upstream: String
    let client: CurlHTTPClient  // one for the process: connections are pooled, cookies are not
    let store: CacheStore  // one for the process: every session has its own scope in it
    let requestStates = CachedRequestStateManager()  // keyed by scope and key, so safe to share

    init(upstream: String) throws {
        self.upstream = upstream
        client = try CurlHTTPClient()
        store = try CacheStore()
    }

    /// The service of one logged-in session: it reads and writes only that session's scope and sends its token.
    func service(sessionID: String, token: String) -> APIService {
        APIService(
            baseURL: upstream,
            client: client,
            cache: CacheManager(store: store, scope: .session(sessionID)),
            credentials: .bearer(token),
            requestStates: requestStates
        )
    }

    /// Logout: the session's whole scope goes, uplifted entries included.
    @discardableResult
    func logout(sessionID: String) -> ClearReport {
        CacheManager(store: store, scope: .session(sessionID)).clearCache(reason: .logout)
    }
}

/// An old call site: the same `Result`, now awaited.
func balanceText(_ service: APIService, accountId: String) async -> String {
    switch await service.perform(with: BalanceRequest(accountId: accountId)) {
    case .success(let balance):
        return "available \(balance.availableBalance)"
    case .failure(.http(let status, let body)):
        return "upstream answered \(status) \(body?.code ?? "")"
    case .failure(let error):
        return "failed: \(error)"
    }
}
