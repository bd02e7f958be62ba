import FixtureSupport
import Foundation
import RESTCache
import Testing

@Suite("Read your writes: a read never joins a call that left before a clear, a mutation or a refresh")
struct ReadYourWritesTests {
    private let balanceRoute = "GET /api/accounts/101/balance"
    /// Long enough for the test to act while the first call is still on its way, even on a loaded machine.
    private let slow = 1500
    /// Lets a second request reach the fixture while the first holds its connection.
    private let parallel = CurlHTTPClient.Configuration(enableHTTP2: false)
    private let invalidatingPayments = APIService.Configuration(
        honorsHTTPCaching: false,
        invalidationRules: [InvalidationRule("POST /api/payments", invalidates: [.domain("balances")])]
    )
    private let payment = PaymentRequest(
        body: .init(fromAccountId: "101", payeeId: "payee-alice-1", amount: 25, reference: "rent"))

    @Test("a balance read after a payment makes its own call and sees the payment; the old call is not stored")
    func readAfterPaymentMakesItsOwnCall() async throws {
        let harness = try await Harness("ryw-payment", transport: parallel)
        try await harness.tenant.setLatency(milliseconds: slow, route: balanceRoute, answerFirst: true)
        let service = harness.service(configuration: invalidatingPayments)
        let before = Task { await service.perform(with: BalanceRequest(accountId: "101")) }
        try await waitForCount(harness, balanceRoute, 1)

        #expect(try await service.perform(with: payment).value().account.balance == 2475)
        let after = try await service.performWithSource(with: BalanceRequest(accountId: "101")).value()

        #expect(after.source == .network)
        #expect(after.data.balance == 2475)
        #expect(try await before.value.value().balance == 2500)
        #expect(try await harness.counters().route(balanceRoute) == 2)
        #expect(harness.store.statistics(for: .session("alice")).deduplicatedJoins == 0)
        let cached = try await service.performWithSource(with: BalanceRequest(accountId: "101")).value()
        #expect(cached.source == .cache)
        #expect(cached.data.balance == 2475)
    }

    @Test("a mutation that invalidates nothing still keeps later reads off the calls that left before it")
    func mutationWithoutInvalidation() async throws {
        let harness = try await Harness("ryw-norule", transport: parallel)
        // Held until released (each answer computed when its request arrives), so the first call is surely still on
        // its way when the payment and the later read happen, however loaded the machine.
        try await harness.tenant.holdAnswers(route: balanceRoute, answerFirst: true)
        let service = harness.service(configuration: .init(honorsHTTPCaching: false, invalidatesOwnPath: false))
        let before = Task { await service.perform(with: BalanceRequest(accountId: "101")) }
        try await waitForCount(harness, balanceRoute, 1)
        _ = try await service.perform(with: payment).value()
        let later = Task { await service.perform(with: BalanceRequest(accountId: "101")) }
        // A read that joined the older call would never make this second request.
        try await waitForCount(harness, balanceRoute, 2)
        try await harness.tenant.releaseHeldAnswers()
        let after = try await later.value.value()

        #expect(after.balance == 2475)
        #expect(try await before.value.value().balance == 2500)
        #expect(try await harness.counters().route(balanceRoute) == 2)
    }

    @Test("a read after a clear of its domain makes its own call")
    func readAfterClearMakesItsOwnCall() async throws {
        let harness = try await Harness("ryw-clear", transport: parallel)
        try await harness.tenant.setLatency(milliseconds: slow, route: balanceRoute)
        let service = harness.service()
        let before = Task { await service.perform(with: BalanceRequest(accountId: "101")) }
        try await waitForCount(harness, balanceRoute, 1)

        CacheManager(store: harness.store, scope: .session("alice")).clearCache(domain: "balances")
        let after = try await service.performWithSource(with: BalanceRequest(accountId: "101")).value()

        #expect(after.source == .network)
        _ = try await before.value.value()
        #expect(try await harness.counters().route(balanceRoute) == 2)
        #expect(harness.store.statistics(for: .session("alice")).deduplicatedJoins == 0)
        #expect(try await service.performWithSource(with: BalanceRequest(accountId: "101")).value().source == .cache)
    }

    @Test("a clear of another session does not split this session's shared call")
    func otherSessionsClearKeepsTheJoin() async throws {
        let harness = try await Harness("ryw-other", transport: parallel)
        // Held until the second read has joined: a fixed latency could end before it is asked on a loaded machine.
        try await harness.tenant.holdAnswers(route: balanceRoute)
        let service = harness.service()
        let first = Task { await service.perform(with: BalanceRequest(accountId: "101")) }
        try await waitForCount(harness, balanceRoute, 1)

        CacheManager(store: harness.store, scope: .session("bob")).clearCache(reason: .logout)
        let joining = Task { await service.perform(with: BalanceRequest(accountId: "101")) }
        let flight = CachedRequestStateManager.Key(scope: .session("alice"), key: "balances.101")
        try await waitUntil { service.requestStates.waiterCount(for: flight) == 2 }
        try await harness.tenant.releaseHeldAnswers()
        let second = try await joining.value.value()

        #expect(second.balance == 2500)
        _ = try await first.value.value()
        #expect(try await harness.counters().route(balanceRoute) == 1)
        #expect(harness.store.statistics(for: .session("alice")).deduplicatedJoins == 1)
    }

    @Test("a network-only read during an older call makes its own; cache-first reads after it join the new one")
    func networkOnlyReadStartsItsOwnCall() async throws {
        let harness = try await Harness("ryw-refresh", transport: parallel)
        // Held, not delayed: the older call must still be in flight when the follower comes, however loaded the
        // machine (each answer is computed when its request arrives, and sent at the release).
        try await harness.tenant.holdAnswers(route: balanceRoute, answerFirst: true)
        let service = harness.service()
        let older = Task { await service.perform(with: BalanceRequest(accountId: "101")) }
        try await waitForCount(harness, balanceRoute, 1)
        // Changed upstream behind the cache's back (another channel): only a new call can see it.
        let other = harness.service(session: "alice-web")
        _ = try await other.perform(with: payment).value()

        let refresh = Task { await service.perform(with: BalanceRequest(accountId: "101", cachePolicy: .networkOnly)) }
        try await waitForCount(harness, balanceRoute, 2)
        let flight = CachedRequestStateManager.Key(scope: .session("alice"), key: "balances.101")
        try await waitUntil { service.requestStates.waiterCount(for: flight) == 1 }
        let following = Task { await service.perform(with: BalanceRequest(accountId: "101")) }
        try await waitUntil { service.requestStates.waiterCount(for: flight) == 2 }
        try await harness.tenant.releaseHeldAnswers()
        let follower = try await following.value.value()

        #expect(try await older.value.value().balance == 2500)
        #expect(try await refresh.value.value().balance == 2475)
        #expect(follower.balance == 2475)
        #expect(try await harness.counters().route(balanceRoute) == 2)
    }

    @Test("two network-only reads do not share a call either")
    func networkOnlyReadsDoNotShare() async throws {
        let harness = try await Harness("ryw-refresh2", transport: parallel)
        try await harness.tenant.setLatency(milliseconds: slow, route: balanceRoute)
        let service = harness.service()
        let request = BalanceRequest(accountId: "101", cachePolicy: .networkOnly)
        let first = Task { await service.perform(with: request) }
        try await waitForCount(harness, balanceRoute, 1)
        _ = try await service.perform(with: request).value()
        _ = try await first.value.value()
        #expect(try await harness.counters().route(balanceRoute) == 2)
    }
}
