import FixtureSupport
import Foundation
import RESTCache
import Testing

/// Fail-safe over the real fixture: a stale answer within its window when the upstream fails, the failing upstream
/// asked once per throttle period, nothing past the window.
@Suite("Fail-safe: stale answers while the upstream fails, throttled, within their window")
struct FailSafeTests {
    private let route = "GET /api/accounts/101/balance"
    private let alice = CacheScope.session("alice")
    private let hour = CacheResilience(failSafeMaxDuration: .seconds(3_600), failSafeThrottleDuration: .seconds(30))

    @Test(
        "An upstream down for an hour: maintenance between reads, fail-safe answers through the window, then the error")
    func downForAnHour() async throws {
        let harness = try await Harness("fs-hour")
        let service = harness.service(configuration: .resilient(hour))
        let fresh = try await service.perform(with: ResilientBalanceRequest()).value()
        try await harness.tenant.inject(.status(503), route: route, count: 1_000)

        // Every 10 minutes from expiry to 59 minutes past it: maintenance, then a read past the throttle.
        harness.clock.advance(by: .seconds(60))
        for _ in 0..<6 {
            harness.clock.advance(by: .seconds(590))
            harness.store.purgeExpired(olderThan: .seconds(60))
            let served = try await service.performWithSource(with: ResilientBalanceRequest()).value()
            #expect(served.isStale)
            #expect(served.staleReason == .failSafe)
            #expect(served.data == fresh)
            #expect(served.age > .seconds(60))
        }
        #expect(try await harness.counters().route(route) == 7)
        #expect(service.shared.staleAnswers.count(.failSafe) == 6)

        // Past the hour (and the purge's own grace): the entry is gone and the upstream's error is the answer.
        harness.clock.advance(by: .seconds(3_600 + 60 + 60 + 1) - .seconds(60 + 6 * 590))
        harness.store.purgeExpired(olderThan: .seconds(60))
        #expect(harness.store.entryCount(in: alice) == 0)
        #expect(await service.perform(with: ResilientBalanceRequest()).failure?.status == 503)
    }

    @Test("Past its window an entry still held in memory is not served: the upstream's error is the answer")
    func pastTheWindowIsAnError() async throws {
        let harness = try await Harness("fs-past")
        let service = harness.service(configuration: .resilient(hour))
        _ = try await service.perform(with: ResilientBalanceRequest()).value()
        harness.clock.advance(by: .seconds(60 + 3_600 + 1))  // no maintenance: the entry is still in memory
        #expect(harness.store.entryCount(in: alice) == 1)
        try await harness.tenant.inject(.status(503), route: route)
        #expect(await service.perform(with: ResilientBalanceRequest()).failure?.status == 503)
    }

    @Test("1,000 concurrent callers on a failing upstream: it is asked once per throttle period")
    func throttleUnderLoad() async throws {
        let harness = try await Harness("fs-throttle")
        let service = harness.service(configuration: .resilient(hour))
        let fresh = try await service.perform(with: ResilientBalanceRequest()).value()
        try await harness.tenant.inject(.status(503), route: route, count: 1_000)
        harness.clock.advance(by: .seconds(61))

        for period in 1...2 {
            let answers = await withTaskGroup(of: Balance?.self) { group in
                for _ in 0..<1_000 {
                    group.addTask {
                        let served = try? await service.performWithSource(with: ResilientBalanceRequest()).value()
                        return served?.isStale == true ? served?.data : nil
                    }
                }
                return await group.reduce(into: [Balance?]()) { $0.append($1) }
            }
            #expect(answers.count == 1_000)
            #expect(answers.allSatisfy { $0 == fresh })
            // One call for the first answer, then one failing call per period.
            #expect(try await harness.counters().route(route) == 1 + period)
            harness.clock.advance(by: .seconds(30))
        }
    }

    @Test("Without fail-safe, a failing upstream's error is the answer even with a stale entry at hand")
    func withoutFailSafeTheErrorIsTheAnswer() async throws {
        let harness = try await Harness("fs-off")
        let service = harness.service(configuration: .resilient(CacheResilience(hardTimeout: .seconds(30))))
        _ = try await service.perform(with: ResilientBalanceRequest()).value()
        harness.clock.advance(by: .seconds(61))
        try await harness.tenant.inject(.status(503), route: route)
        #expect(await service.perform(with: ResilientBalanceRequest()).failure?.status == 503)
    }

    @Test("Stale-if-error keeps working and, with resilience on, is its fail-safe window")
    func staleIfErrorMapsOntoFailSafe() async throws {
        let harness = try await Harness("fs-sie")
        let service = harness.service(
            configuration: .resilient(
                CacheResilience(failSafeThrottleDuration: .seconds(30), hardTimeout: .seconds(30))))
        let policy = RESTCachePolicy.staleIfError(maximumStaleness: .seconds(600))
        _ = try await service.perform(with: ResilientBalanceRequest(cachePolicy: policy)).value()
        harness.clock.advance(by: .seconds(60 + 300))
        try await harness.tenant.inject(.status(503), route: route, count: 10)
        let served = try await service.performWithSource(with: ResilientBalanceRequest(cachePolicy: policy)).value()
        #expect(served.staleReason == .failSafe)
        harness.clock.advance(by: .seconds(301))  // past the policy's 600 s
        #expect(await service.perform(with: ResilientBalanceRequest(cachePolicy: policy)).failure?.status == 503)
    }
}
