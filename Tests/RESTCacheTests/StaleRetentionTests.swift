import FixtureSupport
import Foundation
import RESTCache
import Testing

/// The policies that serve stale answers keep their promise through maintenance: an entry stays in memory for as
/// long as its policy may still serve it, and no longer.
@Suite("Stale answers kept through maintenance for as long as their policy promises")
struct StaleRetentionTests {
    private let route = "GET /api/accounts/101/balance"
    /// The purge the hub's maintenance runs, with its default grace.
    private let maintenanceGrace = Duration.seconds(60)

    private func balance(_ policy: RESTCachePolicy) -> BalanceRequest {
        BalanceRequest(accountId: "101", timeout: .seconds(60), cachePolicy: policy)
    }

    /// What the hub's maintenance does to the REST store.
    private func runMaintenance(_ harness: Harness) {
        harness.store.purgeExpired(olderThan: maintenanceGrace)
    }

    @Test("stale-if-error for an hour: purged between reads, the stale answer still comes while the upstream fails")
    func staleIfErrorSurvivesMaintenance() async throws {
        let harness = try await Harness("sie-hour")
        let service = harness.service(configuration: .init(honorsHTTPCaching: false))
        let policy = RESTCachePolicy.staleIfError(maximumStaleness: .seconds(3_600))
        let fresh = try await service.perform(with: balance(policy)).value()

        harness.clock.advance(by: .seconds(60) + .seconds(30 * 60))  // half an hour past expiry
        runMaintenance(harness)
        #expect(harness.store.entryCount(in: .session("alice")) == 1)
        try await harness.tenant.inject(.status(503), route: route)
        let served = try await service.performWithSource(with: balance(policy)).value()
        #expect(served.source == .staleCache)
        #expect(served.data == fresh)

        harness.clock.advance(by: .seconds(29 * 60))  // 59 minutes past expiry
        runMaintenance(harness)
        try await harness.tenant.inject(.status(503), route: route)
        #expect(try await service.performWithSource(with: balance(policy)).value().source == .staleCache)
        #expect(try await harness.counters().route(route) == 3)
    }

    @Test("stale-if-error past its hour: maintenance removes the entry and the upstream's error is the answer")
    func staleIfErrorEndsAfterItsHour() async throws {
        let harness = try await Harness("sie-gone")
        let service = harness.service(configuration: .init(honorsHTTPCaching: false))
        let policy = RESTCachePolicy.staleIfError(maximumStaleness: .seconds(3_600))
        _ = try await service.perform(with: balance(policy)).value()

        harness.clock.advance(by: .seconds(60) + .seconds(3_600))  // the hour is over; the purge's grace is not
        runMaintenance(harness)
        #expect(harness.store.entryCount(in: .session("alice")) == 1)
        harness.clock.advance(by: maintenanceGrace)
        runMaintenance(harness)
        #expect(harness.store.entryCount(in: .session("alice")) == 0)

        try await harness.tenant.inject(.status(503), route: route)
        #expect(await service.perform(with: balance(policy)).failure?.status == 503)
    }

    @Test("stale-while-revalidate with a 30 minute grace: purged between reads, the stale answer comes at once")
    func staleWhileRevalidateSurvivesMaintenance() async throws {
        let harness = try await Harness("swr-grace")
        let service = harness.service(configuration: .init(honorsHTTPCaching: false))
        let policy = RESTCachePolicy.staleWhileRevalidate(gracePeriod: .seconds(30 * 60))
        let fresh = try await service.perform(with: balance(policy)).value()

        harness.clock.advance(by: .seconds(60) + .seconds(20 * 60))
        runMaintenance(harness)
        // The background refresh fails, so the entry stays as it was.
        try await harness.tenant.inject(.status(503), route: route)
        let served = try await service.performWithSource(with: balance(policy)).value()
        await service.waitForBackgroundRefreshes()
        #expect(served.source == .staleCache)
        #expect(served.data == fresh)
        #expect(try await harness.counters().route(route) == 2)

        harness.clock.advance(by: .seconds(10 * 60) + maintenanceGrace)  // past the grace and the purge's own
        runMaintenance(harness)
        #expect(harness.store.entryCount(in: .session("alice")) == 0)
        try await harness.tenant.inject(.status(503), route: route)
        #expect(await service.perform(with: balance(policy)).failure?.status == 503)
    }

    @Test("an entry no policy serves stale is still purged at its expiry plus the purge's grace")
    func defaultEntryPurgedAsBefore() async throws {
        let harness = try await Harness("sie-default")
        let service = harness.service(configuration: .init(honorsHTTPCaching: false))
        _ = try await service.perform(with: balance(.cacheFirst)).value()

        harness.clock.advance(by: .seconds(60) + .seconds(59))
        runMaintenance(harness)
        #expect(harness.store.entryCount(in: .session("alice")) == 1)
        harness.clock.advance(by: .seconds(2))
        runMaintenance(harness)
        #expect(harness.store.entryCount(in: .session("alice")) == 0)

        // A stale-if-error read now finds nothing to fall back on.
        try await harness.tenant.inject(.status(503), route: route)
        let policy = RESTCachePolicy.staleIfError(maximumStaleness: .seconds(3_600))
        #expect(await service.perform(with: balance(policy)).failure?.status == 503)
    }
}
