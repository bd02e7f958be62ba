import Foundation
import GraphQLCache
import RESTCache
import UnifiedCache

// MIGRATION.md, step 2: to the facade. Every declaration here is quoted in MIGRATION.md; edit both together.

/// The backend-for-frontend: one hub for the process, one session per logged-in user.
struct BankBFF: Sendable {
    let hub: CacheHub

    init(upstream: String, settings: SettingsStore, clock: any CacheClock = SystemCacheClock()) throws {
        hub = try CacheHub(
            configuration: .init(restBaseURL: upstream, graphQLEndpoint: upstream + "/graphql").withBankingPresets(),
            settings: settings,
            clock: clock
        )
    }

    /// The session of a request: made on the user's first request, the same object on every later one. `userID`
    /// is who the BFF verified the token to be (its subject), never a value the client chose.
    func session(_ sessionID: String, userID: String, token: String) -> CacheSession {
        hub.session(id: sessionID, principal: VerifiedPrincipal(userID), credentials: .bearer(token))
    }
}

/// At start-up: the settings file named by `UCACHE_SETTINGS`, then the `UCACHE_*` overrides.
func startBankBFF() throws -> BankBFF {
    try BankBFF(
        upstream: "https://bank.example.com",
        settings: SettingsStore(environment: ProcessInfo.processInfo.environment)
    )
}

extension BankBFF {
    /// GET /balances/{id}: the request type and the call of step 1, through the session's service.
    func balance(sessionID: String, userID: String, token: String, accountId: String) async throws -> Balance {
        let session = session(sessionID, userID: userID, token: token)
        return try await session.rest.perform(with: BalanceRequest(accountId: accountId)).get()
    }
}

struct PaymentRequest: RequestType {
    struct Response: Decodable, Sendable {
        var account: Account
        struct Account: Decodable, Sendable { var id: String }
    }
    typealias ErrorBody = BankError
    struct Body: Encodable, Sendable {
        var fromAccountId: String
        var payeeId: String
        var amount: Double
    }

    var method: CurlHTTPClient.Method { .post }
    var path: String { "/api/payments" }
    var body: Body?
}

extension BankBFF {
    /// POST /payments: the payment, then the clears the app's CacheManager made after one, now awaited. Each
    /// returns a report: what it removed from REST and GraphQL, how long it took, and which part failed.
    func pay(
        sessionID: String, userID: String, token: String, payment: PaymentRequest.Body
    ) async throws -> [UnifiedClearReport] {
        let session = session(sessionID, userID: userID, token: token)
        _ = try await session.rest.perform(with: PaymentRequest(body: payment)).get()
        let reports = [
            await session.cacheManager.clearBalancesCache(),
            await session.cacheManager.clearTransactionHistoryCache(),
            await session.cacheManager.clearCacheForPaymentListOnly(),
        ]
        for report in reports where !report.succeeded {
            print("cache clear incomplete: \(report)")  // names the failed part; never prints cached values
        }
        return reports
    }
}
