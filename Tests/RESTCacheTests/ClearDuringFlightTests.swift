import FixtureSupport
import Foundation
import RESTCache
import Testing

@Suite("A clear while a request is in flight")
struct ClearDuringFlightTests {
    @Test("the answer is delivered but not stored: nothing is resurrected after the clear")
    func noWriteAfterClear() async throws {
        let harness = try await Harness("inflightclear")
        try await harness.tenant.holdAnswers(route: "GET /api/accounts")
        let service = harness.service()
        let inFlight = Task { await service.performWithSource(with: AccountsRequest()) }
        try await waitForCount(harness, "GET /api/accounts", 1)

        CacheManager(store: harness.store, scope: .session("alice")).clearCache(reason: .logout)
        try await harness.tenant.releaseHeldAnswers()
        let delivered = try await inFlight.value.value()
        #expect(delivered.source == .network)
        #expect(delivered.data.count == 2)
        #expect(harness.store.entryCount(in: .session("alice")) == 0)
    }

    @Test("a domain clear during flight also keeps the late answer out")
    func domainClearDuringFlight() async throws {
        let harness = try await Harness("inflightdomain")
        try await harness.tenant.holdAnswers(route: "GET /api/accounts/101/balance")
        let service = harness.service()
        let inFlight = Task { await service.perform(with: BalanceRequest(accountId: "101")) }
        try await waitForCount(harness, "GET /api/accounts/101/balance", 1)
        CacheManager(store: harness.store, scope: .session("alice")).clearCache(domain: "balances")
        try await harness.tenant.releaseHeldAnswers()
        _ = try await inFlight.value.value()
        #expect(harness.store.entryCount(in: .session("alice")) == 0)
    }
}
