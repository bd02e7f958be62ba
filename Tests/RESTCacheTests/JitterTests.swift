import FixtureSupport
import Foundation
import RESTCache
import Synchronization
import Testing

@Suite("Jitter on REST answers' lifetimes")
struct JitterTests {
    /// Seeded random bits for the service's jitter.
    private static func seeded(_ seed: UInt64) -> @Sendable () -> UInt64 {
        let generator = Mutex(SeededGenerator(seed: seed))
        return { generator.withLock { $0.next() } }
    }

    private func configuration(_ jitter: CacheJitter) -> APIService.Configuration {
        var configuration = APIService.Configuration()
        configuration.jitter = jitter
        return configuration
    }

    @Test("answers stored together get lifetimes spread over the upstream's max-age plus at most the bound")
    func spreadOverTheBound() async throws {
        let harness = try await Harness("jitter-spread")
        let service = harness.service(
            configuration: configuration(CacheJitter(maxDuration: .seconds(6), random: Self.seeded(4))))
        var lifetimes: [Duration] = []
        for index in 0..<40 {
            let request = RawRequest<EmptyResponse>(
                path: "/api/echo", queryItems: [QueryItem("set_header", "Cache-Control:max-age=60")],
                cache: RequestCache(key: "echo.jitter.\(index)", timeout: .seconds(600)))
            _ = try await service.perform(with: request).value()
            let entry = try #require(harness.store.peek("echo.jitter.\(index)", in: .session("alice")).entry)
            lifetimes.append(try #require(entry.expiresAt).duration(since: entry.storedAt))
        }
        #expect(lifetimes.allSatisfy { $0 >= .seconds(60) && $0 <= .seconds(66) }, "\(lifetimes)")
        #expect(lifetimes.max()! - lifetimes.min()! > .seconds(3), "not spread: \(lifetimes)")
    }

    @Test("the longest jitter serves past max-age up to the bound and not a moment beyond")
    func neverBeyondTheBound() async throws {
        let harness = try await Harness("jitter-bound")
        let service = harness.service(
            configuration: configuration(CacheJitter(maxDuration: .seconds(5), random: { .max })))
        let request = BalanceRequest(accountId: "101", timeout: .seconds(600))
        _ = try await service.perform(with: request).value()
        harness.clock.advance(by: .seconds(31))  // past the upstream's max-age=30
        #expect(try await service.performWithSource(with: request).value().source == .cache)
        harness.clock.advance(by: .seconds(4))  // 35 s: the 30 s allowed and the whole 5 s bound
        #expect(try await service.performWithSource(with: request).value().source == .network)
        #expect(try await harness.counters().route("GET /api/accounts/101/balance") == 2)
    }

    @Test("no jitter by default: an answer expires at the upstream's max-age exactly")
    func noneByDefault() async throws {
        let harness = try await Harness("jitter-none")
        let service = harness.service()
        #expect(APIService.Configuration().jitter.isNone)
        let request = BalanceRequest(accountId: "101", timeout: .seconds(600))
        _ = try await service.perform(with: request).value()
        let entry = try #require(harness.store.peek("balances.101", in: .session("alice")).entry)
        #expect(try #require(entry.expiresAt).duration(since: entry.storedAt) == .seconds(30))
    }

    @Test("an answer the upstream says must be revalidated (no-cache) is not made fresh by jitter")
    func noCacheStaysStale() async throws {
        let harness = try await Harness("jitter-nocache")
        let service = harness.service(
            configuration: configuration(CacheJitter(maxDuration: .seconds(5), random: { .max })))
        let request = RawRequest<EmptyResponse>(
            path: "/api/echo", queryItems: [QueryItem("set_header", "Cache-Control:no-cache")],
            cache: RequestCache(key: "echo.jitter.nocache", timeout: .seconds(600)))
        _ = try await service.perform(with: request).value()
        #expect(try await service.performWithSource(with: request).value().source == .network)
        #expect(try await harness.counters().route("GET /api/echo") == 2)
    }
}
