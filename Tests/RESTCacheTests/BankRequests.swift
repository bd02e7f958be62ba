import FixtureSupport
import Foundation
import RESTCache

// The fixture bank's REST routes, written the way a NABAPICoreKit caller writes requests.

struct Account: Decodable, Sendable, Equatable {
    var id: String
    var accountToken: String
    var name: String
    var balance: Double
    var availableBalance: Double
}

struct Balance: Decodable, Sendable, Equatable {
    var accountId: String
    var balance: Double
    var availableBalance: Double
}

struct Payee: Decodable, Sendable, Equatable {
    var id: String
    var name: String
}

struct Profile: Decodable, Sendable, Equatable {
    var id: String
    var displayName: String
}

struct Offer: Decodable, Sendable, Equatable {
    var id: String
    var title: String
}

struct FeatureFlag: Decodable, Sendable, Equatable {
    var name: String
    var enabled: Bool
}

struct BankErrorBody: Decodable, Sendable, Equatable {
    var error: String
}

struct AccountsRequest: RequestType {
    typealias Response = [Account]
    typealias ErrorBody = BankErrorBody
    var path: String { "/api/accounts" }
    var cache: Cache? = Cache(key: "accountSummary.accounts", timeout: .seconds(300), isUpliftedCache: false)
    var cachePolicy: RESTCachePolicy = .cacheFirst

    struct Cache: Cacheable {
        let key: String
        let timeout: Timeout
        let isUpliftedCache: Bool
        var domains: Set<String> { ["accountSummary"] }
    }
}

struct BalanceRequest: RequestType {
    typealias Response = Balance
    typealias ErrorBody = BankErrorBody
    var accountId: String
    var timeout: Timeout = .seconds(300)
    var isUplifted = false
    var cachePolicy: RESTCachePolicy = .cacheFirst
    var path: String { "/api/accounts/\(accountId)/balance" }
    var cache: RequestCache? {
        RequestCache(
            key: "balances.\(accountId)",
            timeout: timeout,
            isUpliftedCache: isUplifted,
            domains: ["balances"],
            accountIds: [accountId, "atok-\(accountId)"],
            entityKeys: ["Account:\(accountId)"]
        )
    }
}

struct PayeesRequest: RequestType {
    typealias Response = [Payee]
    var path: String { "/api/payees" }
    var cache: RequestCache? = RequestCache(key: "payees.list", timeout: .seconds(300), domains: ["payees"])
}

struct AddPayeeRequest: RequestType {
    typealias Response = Payee
    typealias ErrorBody = BankErrorBody
    struct Body: Encodable, Sendable {
        var name: String
        var bsb: String
        var accountNumber: String
    }
    var method: CurlHTTPClient.Method { .post }
    var path: String { "/api/payees" }
    var body: Body?
}

struct PaymentRequest: RequestType {
    struct Response: Decodable, Sendable {
        var account: Account
    }
    typealias ErrorBody = BankErrorBody
    struct Body: Encodable, Sendable {
        var fromAccountId: String
        var payeeId: String
        var amount: Double
        var reference: String?
    }
    var method: CurlHTTPClient.Method { .post }
    var path: String { "/api/payments" }
    var body: Body?
}

struct ProfileRequest: RequestType {
    typealias Response = Profile
    var path: String { "/api/profile" }
    var cache: RequestCache? = RequestCache(
        key: "userProfile.profile", timeout: .seconds(600), domains: ["userProfile"])
}

struct NotificationsRequest: RequestType {
    struct Notification: Decodable, Sendable { var id: String }
    typealias Response = [Notification]
    var path: String { "/api/notifications" }
    var cache: RequestCache? = RequestCache(key: "notifications.list", timeout: .seconds(300))
}

struct OffersRequest: RequestType {
    typealias Response = [Offer]
    var language: String
    var path: String { "/api/offers" }
    var headers: CurlHTTPClient.Headers { ["Accept-Language": language] }
    var cache: RequestCache? = RequestCache(key: "offers.list", timeout: .seconds(300))
}

struct FeatureFlagsRequest: RequestType {
    typealias Response = [FeatureFlag]
    var path: String { "/api/feature-flags" }
    var extraHeaders: CurlHTTPClient.Headers = [:]
    var headers: CurlHTTPClient.Headers { extraHeaders }
    var cache: RequestCache? = RequestCache(key: "featureFlags.all", timeout: .seconds(300), isShared: true)
}

/// Any route decoded as a given type (for bad-input tests).
struct RawRequest<Response: Decodable & Sendable>: RequestType {
    var path: String
    var queryItems: [QueryItem] = []
    var cache: RequestCache?
    var cachePolicy: RESTCachePolicy = .cacheFirst
}
