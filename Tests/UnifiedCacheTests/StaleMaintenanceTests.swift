import FixtureSupport
import Foundation
import RESTCache
import Testing
import UnifiedCache

/// A cached GET of the accounts list under a policy of the test's choosing, fresh for 60 seconds.
private struct PolicyGET: RequestType {
    typealias Response = AnyJSON
    var cachePolicy: RESTCachePolicy
    var path: String { "/api/accounts" }
    var cache: RequestCache? { RequestCache(key: "accounts.policy", timeout: .seconds(60)) }
}

@Suite("The hub's maintenance keeps what a stale-serving policy promised")
struct StaleMaintenanceTests {
    private let route = "GET /api/accounts"

    /// A hub whose sessions outlive the test's simulated hours, so only the purge decides what stays.
    private func harness(_ label: String) async throws -> FacadeHarness {
        try await FacadeHarness(
            label, settings: SettingsStore(settings: CacheSettings(sessions: .init(idleTimeoutSeconds: 86_400))))
    }

    @Test("stale-if-error for an hour: with the upstream down, maintenance runs and the stale answer keeps coming")
    func staleIfErrorThroughMaintenance() async throws {
        let harness = try await harness("hub-sie")
        let request = PolicyGET(cachePolicy: .staleIfError(maximumStaleness: .seconds(3_600)))
        _ = try await harness.session(.alice).rest.perform(with: request).get()

        // To 10, 30 and 59 minutes past the expiry at 60 s.
        for (step, minutes) in [(660.0, 10), (1_200, 30), (1_740, 59)] {
            harness.clock.advance(seconds: step)
            #expect(await harness.hub.runMaintenance().expiredEntries == 0)
            try await harness.tenant.inject(.status(503), route: route)
            let served = try await harness.session(.alice).rest.performWithSource(with: request).get()
            #expect(served.source == .staleCache, "\(minutes) minutes past expiry")
        }

        harness.clock.advance(seconds: 60 + 60)  // an hour past expiry, and the purge's grace
        #expect(await harness.hub.runMaintenance().expiredEntries == 1)
        try await harness.tenant.inject(.status(503), route: route)
        let failure = await harness.session(.alice).rest.perform(with: request)
        guard case .failure(.http(let status, _)) = failure else {
            Issue.record("expected the upstream's 503, got \(failure)")
            return
        }
        #expect(status == 503)
        #expect(try await harness.counters().route(route) == 5)
    }

    @Test("an answer read cache-first is still purged a minute after its expiry")
    func cacheFirstPurgedAsBefore() async throws {
        let harness = try await harness("hub-plain")
        _ = try await harness.session(.alice).rest.perform(with: PolicyGET(cachePolicy: .cacheFirst)).get()

        harness.clock.advance(seconds: 60 + 59)
        #expect(await harness.hub.runMaintenance().expiredEntries == 0)
        harness.clock.advance(seconds: 2)
        #expect(await harness.hub.runMaintenance().expiredEntries == 1)
    }
}
