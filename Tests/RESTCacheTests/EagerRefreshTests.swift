import FixtureSupport
import Foundation
import RESTCache
import Testing

@Suite("Eager refresh: a hit late in its life refreshes once in the background")
struct EagerRefreshTests {
    private let route = "GET /api/accounts/101/balance"
    private let alice = CacheScope.session("alice")

    @Test("1,000 concurrent hits past the threshold: every one answered from the cache, one upstream call")
    func oneRefreshForAThousandHits() async throws {
        let harness = try await Harness("er-thousand")
        let service = harness.service(configuration: .resilient(CacheResilience(eagerRefreshThreshold: 0.9)))
        _ = try await service.perform(with: ResilientBalanceRequest()).value()
        harness.clock.advance(by: .seconds(55))  // past 90 % of 60 s

        let sources = await withTaskGroup(of: (ResponseSource?, CacheStaleReason?).self) { group in
            for _ in 0..<1_000 {
                group.addTask {
                    let served = try? await service.performWithSource(with: ResilientBalanceRequest()).value()
                    return (served?.source, served?.staleReason)
                }
            }
            return await group.reduce(into: [(ResponseSource?, CacheStaleReason?)]()) { $0.append($1) }
        }
        #expect(sources.allSatisfy { $0.0 == .cache })
        #expect(sources.count { $0.1 == .eagerRefresh } == 1)
        await service.waitForBackgroundRefreshes()
        #expect(try await harness.counters().route(route) == 2)
        // The refreshed entry starts a new life: fresh for 60 s from now.
        guard case .fresh(let entry) = harness.store.lookup("balances.101", in: alice) else {
            Issue.record("the refreshed entry is missing")
            return
        }
        #expect(entry.age(at: harness.clock.now()) == .zero)
        #expect(service.shared.staleAnswers.count(.eagerRefresh) == 1)
    }

    @Test("Hits before the threshold start no refresh")
    func noRefreshBeforeTheThreshold() async throws {
        let harness = try await Harness("er-early")
        let service = harness.service(configuration: .resilient(CacheResilience(eagerRefreshThreshold: 0.9)))
        _ = try await service.perform(with: ResilientBalanceRequest()).value()
        harness.clock.advance(by: .seconds(50))
        for _ in 0..<10 { _ = try await service.perform(with: ResilientBalanceRequest()).value() }
        await service.waitForBackgroundRefreshes()
        #expect(try await harness.counters().route(route) == 1)
    }

    @Test("A failed eager refresh leaves the entry as it was, and a later hit tries again")
    func failedRefreshIsRetried() async throws {
        let harness = try await Harness("er-fail")
        let service = harness.service(configuration: .resilient(CacheResilience(eagerRefreshThreshold: 0.5)))
        let fresh = try await service.perform(with: ResilientBalanceRequest()).value()
        harness.clock.advance(by: .seconds(40))
        try await harness.tenant.inject(.status(503), route: route)
        #expect(try await service.perform(with: ResilientBalanceRequest()).value() == fresh)
        await service.waitForBackgroundRefreshes()
        #expect(try await service.perform(with: ResilientBalanceRequest()).value() == fresh)
        await service.waitForBackgroundRefreshes()
        #expect(try await harness.counters().route(route) == 3)
    }
}
