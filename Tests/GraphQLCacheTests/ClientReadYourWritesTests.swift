import CacheCore
import CurlHTTP
import FixtureSupport
import GraphQLCache
import Testing

@Suite("GraphQL client: read your writes — no query joins a call that left before a clear, mutation or refresh")
struct ClientReadYourWritesTests {
    /// Long enough for the test to act while the first call is still on its way, even on a loaded machine.
    private let slow = 1500
    /// Lets a second request reach the fixture while the first holds its connection.
    private let parallel = CurlHTTPClient.Configuration(enableHTTP2: false)

    @Test("an accounts query after a payment mutation makes its own call and sees the payment")
    func queryAfterMutationMakesItsOwnCall() async throws {
        let harness = try await ClientHarness("gqlryw-mutation", transportConfiguration: parallel)
        // Held until released (each answer computed when its request arrives), so the first call is surely still on
        // its way when the mutation and the later query happen, however loaded the machine.
        try await harness.tenant.holdAnswers(operation: "AccountSummary", answerFirst: true)
        let client = try harness.client()
        let before = Task { await client.fetch(query: AccountSummaryQuery()) }
        try await waitUntil { try await harness.count("AccountSummary") == 1 }

        let paid = try await client.perform(mutation: MakePaymentMutation(fromAccountId: "101", amount: 5)).value()
        #expect(paid.data.makePayment.account.balance == 2495)
        let later = Task { await client.fetch(query: AccountSummaryQuery()) }
        // A query that joined the older call would never make this second request.
        try await waitUntil { try await harness.count("AccountSummary") == 2 }
        try await harness.tenant.releaseHeldAnswers()
        let after = try await later.value.value()

        #expect(after.source == .network)
        #expect(after.data.accounts.first?.balance == 2495)
        #expect(try await before.value.value().data.accounts.first?.balance == 2500)
        #expect(try await harness.count("AccountSummary") == 2)
        #expect(client.statistics().deduplicatedJoins == 0)
    }

    @Test("a query that left before a mutation does not overwrite the mutation's result when it lands")
    func olderAnswerDoesNotOverwriteMutation() async throws {
        let harness = try await ClientHarness("gqlryw-overwrite", transportConfiguration: parallel)
        try await harness.tenant.holdAnswers(operation: "AccountSummary", answerFirst: true)
        let client = try harness.client()
        let before = Task { await client.fetch(query: AccountSummaryQuery()) }
        try await waitUntil { try await harness.count("AccountSummary") == 1 }

        let paid = try await client.perform(mutation: MakePaymentMutation(fromAccountId: "101", amount: 5)).value()
        #expect(paid.wasStored)
        try await harness.tenant.releaseHeldAnswers()
        let late = try await before.value.value()

        #expect(late.data.accounts.first?.balance == 2500)
        #expect(!late.wasStored)
        #expect(harness.store.record("Account:101", in: client.scope)?.fields["balance"]?.value == .scalar(2495.0))
        let next = try await client.fetch(query: AccountSummaryQuery()).value()
        #expect(next.source == .network)
        #expect(next.data.accounts.first?.balance == 2495)
        #expect(next.wasStored)
    }

    @Test("a query that left after the mutation landed is stored as usual")
    func laterAnswerIsStored() async throws {
        let harness = try await ClientHarness("gqlryw-later", transportConfiguration: parallel)
        let client = try harness.client()
        _ = try await client.perform(mutation: MakePaymentMutation(fromAccountId: "101", amount: 5)).value()
        let after = try await client.fetch(query: AccountSummaryQuery()).value()
        #expect(after.wasStored)
        #expect(try await client.fetch(query: AccountSummaryQuery()).value().source == .cache)
    }

    @Test("a query after a clear makes its own call, and only the newer answer is stored")
    func queryAfterClearMakesItsOwnCall() async throws {
        let harness = try await ClientHarness("gqlryw-clear", transportConfiguration: parallel)
        // Held, not delayed: the older call must still be in flight at the clear, however loaded the machine.
        try await harness.tenant.holdAnswers(operation: "AccountSummary")
        let client = try harness.client()
        let before = Task { await client.fetch(query: AccountSummaryQuery()) }
        try await waitUntil { try await harness.count("AccountSummary") == 1 }

        await client.cacheManager().clearCache(reason: .logout)
        let later = Task { await client.fetch(query: AccountSummaryQuery()) }
        try await waitUntil { try await harness.count("AccountSummary") == 2 }  // its own call, not a join
        try await harness.tenant.releaseHeldAnswers()
        let after = try await later.value.value()

        #expect(after.source == .network)
        #expect(after.wasStored)
        #expect(try await !before.value.value().wasStored)
        #expect(try await harness.count("AccountSummary") == 2)
        #expect(client.statistics().deduplicatedJoins == 0)
    }

    @Test("a clear of another session's records does not split this session's shared call")
    func otherSessionsClearKeepsTheJoin() async throws {
        let harness = try await ClientHarness("gqlryw-other", transportConfiguration: parallel)
        // Held until the second query has joined: a fixed latency could end before it is asked on a loaded machine.
        try await harness.tenant.holdAnswers(operation: "AccountSummary")
        let client = try harness.client()
        let bob = try harness.client(.bob)
        let first = Task { await client.fetch(query: AccountSummaryQuery()) }
        try await waitUntil { try await harness.count("AccountSummary") == 1 }

        await bob.cacheManager().clearCache(reason: .logout)
        let second = Task { await client.fetch(query: AccountSummaryQuery()) }
        try await waitUntil { client.inFlightWaiterCount == 2 }
        try await harness.tenant.releaseHeldAnswers()
        _ = try await second.value.value()

        #expect(try await first.value.value().wasStored)
        #expect(try await harness.count("AccountSummary") == 1)
        #expect(client.statistics().deduplicatedJoins == 1)
    }

    @Test("fetchIgnoringCacheData during an older call makes its own; cache-first queries after it join it")
    func networkOnlyQueryStartsItsOwnCall() async throws {
        let harness = try await ClientHarness("gqlryw-refresh", transportConfiguration: parallel)
        // Held, not delayed: the older call must still be in flight when the follower comes, however loaded the
        // machine (each answer is computed when its request arrives, and sent at the release).
        try await harness.tenant.holdAnswers(operation: "AccountBalance", answerFirst: true)
        let client = try harness.client()
        let older = Task { await client.fetch(query: AccountBalanceQuery(id: "101")) }
        try await waitUntil { try await harness.count("AccountBalance") == 1 }
        // Changed upstream through another session: only a call that leaves now can see it.
        let web = try harness.client(session: "alice-web")
        _ = try await web.perform(mutation: MakePaymentMutation(fromAccountId: "101", amount: 5)).value()

        let refresh = Task {
            await client.fetch(query: AccountBalanceQuery(id: "101"), cachePolicy: .fetchIgnoringCacheData)
        }
        try await waitUntil { try await harness.count("AccountBalance") == 2 }
        let waiters = client.inFlightWaiterCount
        let following = Task { await client.fetch(query: AccountBalanceQuery(id: "101")) }
        try await waitUntil { client.inFlightWaiterCount == waiters + 1 }
        try await harness.tenant.releaseHeldAnswers()
        let follower = try await following.value.value()

        #expect(try await older.value.value().data.account?.balance == 2500)
        #expect(try await refresh.value.value().data.account?.balance == 2495)
        #expect(follower.data.account?.balance == 2495)
        #expect(try await harness.count("AccountBalance") == 2)
        #expect(client.statistics().deduplicatedJoins == 1)
    }

    @Test("fetchIgnoringCacheCompletely never shares a call either")
    func uncachedQueriesDoNotShare() async throws {
        let harness = try await ClientHarness("gqlryw-uncached", transportConfiguration: parallel)
        try await harness.tenant.setLatency(milliseconds: slow, operation: "AccountSummary")
        let client = try harness.client()
        let first = Task {
            await client.fetch(query: AccountSummaryQuery(), cachePolicy: .fetchIgnoringCacheCompletely)
        }
        try await waitUntil { try await harness.count("AccountSummary") == 1 }
        _ = try await client.fetch(query: AccountSummaryQuery(), cachePolicy: .fetchIgnoringCacheCompletely).value()
        _ = try await first.value.value()
        #expect(try await harness.count("AccountSummary") == 2)
    }
}
