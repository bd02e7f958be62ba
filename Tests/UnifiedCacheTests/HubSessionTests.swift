import FixtureSupport
import Foundation
import RESTCache
import Testing
import UnifiedCache

@Suite("The hub keeps sessions apart and ends them completely")
struct HubSessionTests {
    private let accounts = CachedGET(path: "/api/accounts", key: "accountSummary.list")

    @Test("the same session id gives the same session; different ids never share entries")
    func sessionsAreSeparate() async throws {
        let harness = try await FacadeHarness("hubsessions")
        let alice = harness.session(.alice)
        let bob = harness.session(.bob)
        #expect(harness.session(.alice) === alice)
        _ = try await alice.rest.perform(with: accounts).get()
        #expect(try await bob.rest.performWithSource(with: accounts).get().source == .network)
        #expect(try await harness.counters().route("GET /api/accounts") == 2)
        #expect(harness.hub.sessionCount == 2)
    }

    @Test("ending a session drops its entries and cookies at once and leaves the other session")
    func endSession() async throws {
        let harness = try await FacadeHarness("hubend")
        let alice = harness.session(.alice)
        let bob = harness.session(.bob)
        _ = try await alice.rest.perform(with: accounts).get()
        _ = try await bob.rest.perform(with: accounts).get()
        _ = try await harness.hub.client.execute(
            .init(
                url: harness.tenant.url("/api/cookies/set?name=sid&value=alice"), cookieJar: alice.cookieJar))
        #expect(alice.cookieJar.cookies().count == 1)

        let report = try #require(await harness.hub.endSession(id: "session-alice"))
        #expect(report.succeeded)
        #expect(report.entries == 1)
        #expect(report.cookies == 1)
        #expect(alice.cookieJar.cookies().isEmpty)
        #expect(harness.hub.existingSession(id: "session-alice") == nil)
        #expect(await harness.hub.endSession(id: "session-alice") == nil)
        #expect(try await bob.rest.performWithSource(with: accounts).get().source == .cache)
    }

    @Test("logout while a request is in flight: the answer arrives, nothing lands in the cache")
    func logoutDuringFlight() async throws {
        let harness = try await FacadeHarness("hubinflight")
        try await harness.tenant.holdAnswers(route: "GET /api/accounts")
        let alice = harness.session(.alice)
        let inFlight = Task { await alice.rest.performWithSource(with: accounts) }
        try await waitUntil { try await harness.counters().route("GET /api/accounts") == 1 }
        await alice.cacheManager.clearAllCaches()
        try await harness.tenant.releaseHeldAnswers()
        #expect(try await inFlight.value.get().source == .network)
        #expect(alice.cacheManager.getCacheStatistics().rest.entryCount == 0)
    }
}
