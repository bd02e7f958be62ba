import FixtureSupport
import Foundation
import Testing

@testable import RESTCache

@Suite("Keys built by caching rules ignore the order of query items")
struct QueryKeyOrderTests {
    private let rules = APIService.Configuration(
        honorsHTTPCaching: false,
        cachingRules: [CachingRule("/api/accounts/*/transactions", timeout: .seconds(120))]
    )

    private func key(_ items: [(String, String?)]) -> String? {
        let request = RawRequest<TransactionPage>(
            path: "/api/accounts/101/transactions", queryItems: items.map { QueryItem($0.0, $0.1) })
        return RequestPlan.placement(for: request, sessionScope: .session("alice"), configuration: rules)?.key
    }

    @Test("the same items in another order give the same key, sorted by name then value")
    func orderDoesNotMatter() {
        let expected = "GET /api/accounts/101/transactions?page=2&pageSize=5"
        #expect(key([("page", "2"), ("pageSize", "5")]) == expected)
        #expect(key([("pageSize", "5"), ("page", "2")]) == expected)
        #expect(
            key([("tag", "b"), ("a", nil), ("tag", "a"), ("a", "")])
                == key([("a", ""), ("tag", "a"), ("a", nil), ("tag", "b")]))
        #expect(
            key([("tag", "b"), ("tag", "a"), ("a", nil), ("a", "")])
                == "GET /api/accounts/101/transactions?a&a=&tag=a&tag=b")
    }

    @Test("different values, repeated names and encodings still make different keys")
    func differencesRemain() {
        #expect(key([("page", "1"), ("pageSize", "5")]) != key([("page", "2"), ("pageSize", "5")]))
        #expect(key([("tag", "a"), ("tag", "a")]) != key([("tag", "a")]))
        #expect(key([("a", "1&b=2")]) != key([("a", "1"), ("b", "2")]))
        #expect(key([("a", nil)]) != key([("a", "")]))
    }

    @Test("over the fixture, the second order is a cache hit and sends nothing")
    func secondOrderIsAHit() async throws {
        let harness = try await Harness("querykeyorder")
        let service = harness.service(configuration: rules)
        let first = RawRequest<TransactionPage>(
            path: "/api/accounts/101/transactions", queryItems: [QueryItem("page", "2"), QueryItem("pageSize", "5")])
        let swapped = RawRequest<TransactionPage>(
            path: "/api/accounts/101/transactions", queryItems: [QueryItem("pageSize", "5"), QueryItem("page", "2")])
        let fetched = try await service.performWithSource(with: first).value()
        let reused = try await service.performWithSource(with: swapped).value()
        #expect(fetched.source == .network)
        #expect(reused.source == .cache)
        #expect(reused.data.items.map(\.id) == fetched.data.items.map(\.id))
        #expect(try await harness.counters().route("GET /api/accounts/101/transactions") == 1)

        let otherPage = RawRequest<TransactionPage>(
            path: "/api/accounts/101/transactions", queryItems: [QueryItem("pageSize", "5"), QueryItem("page", "3")])
        #expect(try await service.performWithSource(with: otherPage).value().source == .network)
        #expect(try await harness.counters().route("GET /api/accounts/101/transactions") == 2)
    }
}
