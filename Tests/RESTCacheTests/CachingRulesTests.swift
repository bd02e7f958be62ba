import FixtureSupport
import Foundation
import RESTCache
import Testing

@Suite("Cache only what's safe: rules for requests without a Cacheable")
struct CachingRulesTests {
    @Test("a matching rule caches with its timeout; other paths and non-matching rules do not")
    func rulesDecide() async throws {
        let harness = try await Harness("rules")
        let service = harness.service(
            configuration: .init(
                honorsHTTPCaching: false,
                cachingRules: [
                    CachingRule(
                        "/api/accounts/*/transactions", timeout: .seconds(120), domains: ["transactionHistory"]),
                    CachingRule("/api/payees", cache: false),
                ]
            ))
        let page1 = RawRequest<TransactionPage>(
            path: "/api/accounts/101/transactions", queryItems: [QueryItem("page", "1")])
        let page2 = RawRequest<TransactionPage>(
            path: "/api/accounts/101/transactions", queryItems: [QueryItem("page", "2")])
        #expect(try await service.performWithSource(with: page1).value().source == .network)
        #expect(try await service.performWithSource(with: page1).value().source == .cache)
        #expect(try await service.performWithSource(with: page2).value().source == .network)
        #expect(
            harness.store.keys(in: .session("alice")).sorted() == [
                "GET /api/accounts/101/transactions?page=1", "GET /api/accounts/101/transactions?page=2",
            ])
        harness.clock.advance(by: .seconds(121))
        #expect(try await service.performWithSource(with: page1).value().source == .network)

        _ = try await service.perform(with: RawRequest<[Payee]>(path: "/api/payees")).value()
        _ = try await service.perform(with: RawRequest<[Payee]>(path: "/api/payees")).value()
        #expect(try await harness.counters().route("GET /api/payees") == 2)
    }

    @Test("path patterns match segments with * and suffixes with **")
    func pathPatterns() {
        #expect(PathPattern("/api/accounts/*/balance").matches(method: "GET", path: "/api/accounts/101/balance"))
        #expect(!PathPattern("/api/accounts/*/balance").matches(method: "GET", path: "/api/accounts/1/2/balance"))
        #expect(PathPattern("/api/cards/**").matches(method: "DELETE", path: "/api/cards/7/lock"))
        #expect(PathPattern("POST /api/payments").matches(method: "post", path: "/api/payments"))
        #expect(!PathPattern("POST /api/payments").matches(method: "GET", path: "/api/payments"))
        #expect(PathPattern("/api/pay*").matches(method: "GET", path: "/api/payments"))
        #expect(!PathPattern("/api/pay*").matches(method: "GET", path: "/api/payments/1"))
    }
}

struct TransactionPage: Decodable, Sendable {
    var page: Int
    var items: [Item]
    struct Item: Decodable, Sendable { var id: String }
}
