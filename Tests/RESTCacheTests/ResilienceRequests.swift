import RESTCache

/// The balance read with resilience options of its own (``RequestType/resilience``).
struct ResilientBalanceRequest: RequestType {
    typealias Response = Balance
    typealias ErrorBody = BankErrorBody
    var accountId = "101"
    var timeout: Timeout = .seconds(60)
    var cachePolicy: RESTCachePolicy = .cacheFirst
    var resilience: CacheResilience?
    var path: String { "/api/accounts/\(accountId)/balance" }
    var cache: RequestCache? {
        RequestCache(key: "balances.\(accountId)", timeout: timeout, domains: ["balances"])
    }
}

extension APIService.Configuration {
    /// A service that judges freshness by its own rules only, with `resilience` as its options.
    static func resilient(_ resilience: CacheResilience) -> APIService.Configuration {
        var configuration = APIService.Configuration(honorsHTTPCaching: false)
        configuration.resilience = resilience
        return configuration
    }
}
