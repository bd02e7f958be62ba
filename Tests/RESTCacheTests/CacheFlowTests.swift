import FixtureSupport
import Foundation
import RESTCache
import Testing

@Suite("Cache, then network, then store")
struct CacheFlowTests {
    @Test("the second identical read is served from the cache without an upstream request")
    func secondReadIsACacheHit() async throws {
        let harness = try await Harness("flow")
        let service = harness.service()
        let first = try await service.performWithSource(with: AccountsRequest()).value()
        let second = try await service.performWithSource(with: AccountsRequest()).value()

        #expect(first.source == .network)
        #expect(second.source == .cache)
        #expect(second.data == first.data)
        #expect(second.data.map(\.id) == ["101", "102"])
        #expect(try await harness.counters().route("GET /api/accounts") == 1)
        let statistics = harness.store.statistics(for: .session("alice"))
        #expect(statistics.hits == 1)
        #expect(statistics.misses == 1)
        #expect(statistics.networkFetches == 1)
        #expect(statistics.inserts == 1)
    }

    @Test("an entry past its timeout is fetched again; before it, it is not")
    func expiryFollowsTheClock() async throws {
        let harness = try await Harness("expiry")
        let service = harness.service(configuration: .init(honorsHTTPCaching: false))
        let request = BalanceRequest(accountId: "101", timeout: .seconds(120))
        _ = try await service.perform(with: request).value()
        harness.clock.advance(by: .seconds(119))
        #expect(try await service.performWithSource(with: request).value().source == .cache)
        harness.clock.advance(by: .seconds(2))
        #expect(try await service.performWithSource(with: request).value().source == .network)
        #expect(try await harness.counters().route("GET /api/accounts/101/balance") == 2)
    }

    @Test("a .never entry stays fresh however much time passes")
    func neverExpires() async throws {
        let harness = try await Harness("never")
        let service = harness.service(configuration: .init(honorsHTTPCaching: false))
        let request = BalanceRequest(accountId: "101", timeout: .never)
        _ = try await service.perform(with: request).value()
        harness.clock.advance(by: .seconds(365 * 24 * 3600))
        #expect(try await service.performWithSource(with: request).value().source == .cache)
        #expect(try await harness.counters().route("GET /api/accounts/101/balance") == 1)
    }

    @Test("a request without a Cacheable is never stored")
    func uncachedRequestsAreNotStored() async throws {
        let harness = try await Harness("nocacheable")
        let service = harness.service()
        let request = RawRequest<[Payee]>(path: "/api/payees")
        _ = try await service.perform(with: request).value()
        _ = try await service.perform(with: request).value()
        #expect(try await harness.counters().route("GET /api/payees") == 2)
        #expect(harness.store.entryCount(in: .session("alice")) == 0)
    }

    @Test("error answers are returned typed and never stored")
    func errorsAreNotStored() async throws {
        let harness = try await Harness("errors")
        let service = harness.service()
        let request = BalanceRequest(accountId: "201")  // bob's account: alice gets 404
        let result = await service.perform(with: request)
        guard case .failure(.http(let status, let body)) = result else {
            Issue.record("expected an HTTP error, got \(result)")
            return
        }
        #expect(status == 404)
        #expect(body?.error.isEmpty == false)
        _ = await service.perform(with: request)
        #expect(try await harness.counters().route("GET /api/accounts/201/balance") == 2)
        #expect(harness.store.entryCount(in: .session("alice")) == 0)
    }

    @Test("uplifted entries survive a domain clear and an account clear, not a clear of the session")
    func upliftedSurvival() async throws {
        let harness = try await Harness("uplifted")
        let service = harness.service()
        let manager = CacheManager(store: harness.store, scope: .session("alice"))
        _ = try await service.perform(with: BalanceRequest(accountId: "101", isUplifted: true)).value()
        _ = try await service.perform(with: BalanceRequest(accountId: "102")).value()

        let domainClear = manager.clearCache(domain: "balances")
        #expect(domainClear.entries == 1)
        #expect(domainClear.keptUplifted == 1)
        manager.clearCache(account: "101")
        #expect(
            try await service.performWithSource(with: BalanceRequest(accountId: "101", isUplifted: true)).value().source
                == .cache)
        #expect(try await service.performWithSource(with: BalanceRequest(accountId: "102")).value().source == .network)

        manager.clearCache(reason: .logout)
        #expect(
            try await service.performWithSource(with: BalanceRequest(accountId: "101", isUplifted: true)).value().source
                == .network)
    }

    @Test("LRU eviction under a byte limit drops the least recently used response")
    func lruEvictionUnderByteLimit() async throws {
        func balance(_ key: String) -> RawRequest<Balance> {
            RawRequest(path: "/api/accounts/101/balance", cache: RequestCache(key: key, timeout: .seconds(300)))
        }
        let probe = try await Harness("lruprobe")
        _ = try await probe.service().perform(with: balance("b1")).value()
        let entryBytes = probe.store.statistics(for: .session("alice")).byteCount

        let harness = try await Harness("lru", storeConfiguration: .init(maxBytesPerScope: entryBytes * 5 / 2))
        let service = harness.service()
        _ = try await service.perform(with: balance("b1")).value()
        _ = try await service.perform(with: balance("b2")).value()
        #expect(try await service.performWithSource(with: balance("b1")).value().source == .cache)  // b1 now recent
        _ = try await service.perform(with: balance("b3")).value()

        #expect(harness.store.statistics(for: .session("alice")).evictions == 1)
        #expect(Set(harness.store.keys(in: .session("alice"))) == ["b1", "b3"])
    }
}
