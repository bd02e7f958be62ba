import FixtureSupport
import Foundation
import RESTCache
import Testing

@Suite("Cache policies")
struct PolicyTests {
    private func balance(_ policy: RESTCachePolicy, timeout: Timeout = .seconds(60)) -> BalanceRequest {
        BalanceRequest(accountId: "101", timeout: timeout, cachePolicy: policy)
    }

    private let route = "GET /api/accounts/101/balance"

    @Test("network-only always asks the upstream and stores the answer")
    func networkOnly() async throws {
        let harness = try await Harness("netonly")
        let service = harness.service()
        #expect(try await service.performWithSource(with: balance(.networkOnly)).value().source == .network)
        #expect(try await service.performWithSource(with: balance(.networkOnly)).value().source == .network)
        #expect(try await harness.counters().route(route) == 2)
        #expect(try await service.performWithSource(with: balance(.cacheFirst)).value().source == .cache)
    }

    @Test("no-cache asks the upstream and stores nothing")
    func noCache() async throws {
        let harness = try await Harness("nocache")
        let service = harness.service()
        _ = try await service.perform(with: balance(.noCache)).value()
        #expect(harness.store.entryCount(in: .session("alice")) == 0)
        #expect(try await service.performWithSource(with: balance(.cacheFirst)).value().source == .network)
    }

    @Test("cache-only answers from the cache or fails with cacheMiss, never touching the network")
    func cacheOnly() async throws {
        let harness = try await Harness("cacheonly")
        let service = harness.service()
        guard case .failure(.cacheMiss) = await service.perform(with: balance(.cacheOnly)) else {
            Issue.record("expected cacheMiss")
            return
        }
        #expect(try await harness.counters().requests == 0)
        _ = try await service.perform(with: balance(.cacheFirst)).value()
        #expect(try await service.performWithSource(with: balance(.cacheOnly)).value().source == .cache)
        #expect(try await harness.counters().route(route) == 1)
    }

    @Test("network-first returns the cached value, marked stale, when the network fails")
    func networkFirstFallsBack() async throws {
        let harness = try await Harness("netfirst")
        let service = harness.service()
        let fresh = try await service.perform(with: balance(.networkFirst)).value()
        // libcurl retries once on a reused connection that closes without an answer: drop both attempts.
        try await harness.tenant.inject(.drop, route: route, count: 2)
        let fallback = try await service.performWithSource(with: balance(.networkFirst)).value()
        #expect(fallback.source == .staleCache)
        #expect(fallback.data == fresh)

        try await harness.tenant.inject(.status(404), route: route)
        #expect(await service.perform(with: balance(.networkFirst)).failure?.status == 404)  // 4xx is not recovered
        #expect(try await harness.counters().route(route) == 4)
    }

    @Test("stale-while-revalidate returns stale data at once and makes exactly one background call")
    func staleWhileRevalidate() async throws {
        let harness = try await Harness("swr")
        let service = harness.service(configuration: .init(honorsHTTPCaching: false))
        let policy = RESTCachePolicy.staleWhileRevalidate(gracePeriod: .seconds(300))
        _ = try await service.perform(with: balance(policy)).value()
        harness.clock.advance(by: .seconds(90))  // 30 s past the 60 s timeout: stale, within grace

        // The refresh stays in flight while the ten reads are served.
        try await harness.tenant.holdAnswers(route: route)
        let reads = try await withThrowingTaskGroup(of: ResponseSource.self) { group in
            for _ in 0..<10 {
                group.addTask { try await service.performWithSource(with: balance(policy)).value().source }
            }
            return try await group.reduce(into: [ResponseSource]()) { $0.append($1) }
        }
        #expect(reads.allSatisfy { $0 == .staleCache })
        try await harness.tenant.releaseHeldAnswers()
        await service.waitForBackgroundRefreshes()
        #expect(try await harness.counters().route(route) == 2)
        #expect(try await service.performWithSource(with: balance(policy)).value().source == .cache)
    }

    @Test("stale-while-revalidate past the grace period fetches and waits")
    func staleBeyondGrace() async throws {
        let harness = try await Harness("swrgrace")
        let service = harness.service(configuration: .init(honorsHTTPCaching: false))
        let policy = RESTCachePolicy.staleWhileRevalidate(gracePeriod: .seconds(30))
        _ = try await service.perform(with: balance(policy)).value()
        harness.clock.advance(by: .seconds(100))
        #expect(try await service.performWithSource(with: balance(policy)).value().source == .network)
    }

    @Test("stale-if-error serves a stale entry when the refresh fails, within the allowed staleness")
    func staleIfError() async throws {
        let harness = try await Harness("sie")
        let service = harness.service(configuration: .init(honorsHTTPCaching: false))
        let policy = RESTCachePolicy.staleIfError(maximumStaleness: .seconds(120))
        _ = try await service.perform(with: balance(policy)).value()
        harness.clock.advance(by: .seconds(100))
        try await harness.tenant.inject(.status(503), route: route)
        #expect(try await service.performWithSource(with: balance(policy)).value().source == .staleCache)

        harness.clock.advance(by: .seconds(200))  // now 240 s stale: too old
        try await harness.tenant.inject(.status(503), route: route)
        #expect(await service.perform(with: balance(policy)).failure?.status == 503)
    }
}
