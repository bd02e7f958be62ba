import CacheCore
import FixtureSupport
import GraphQLCache
import Testing

@Suite("GraphQL client: in-flight de-duplication and clears during flight")
struct ClientDeduplicationTests {
    @Test("50 concurrent identical queries make one upstream call and all get the answer")
    func concurrentIdenticalQueries() async throws {
        let harness = try await ClientHarness("gqldedup")
        try await harness.tenant.holdAnswers(operation: "AccountSummary")
        let client = try harness.client()
        let group = Task {
            await withTaskGroup(of: [String]?.self) { group in
                for _ in 0..<50 {
                    group.addTask {
                        try? await client.fetch(query: AccountSummaryQuery()).get().data.accounts.map(\.id)
                    }
                }
                var all: [[String]?] = []
                for await answer in group {
                    all.append(answer)
                }
                return all
            }
        }
        // Every query waits on the one call in flight before its answer goes.
        try await waitUntil { client.inFlightWaiterCount == 50 }
        try await harness.tenant.releaseHeldAnswers()
        let answers = await group.value
        #expect(answers.count == 50)
        #expect(answers.allSatisfy { $0 == ["101", "102"] })
        #expect(try await harness.count("AccountSummary") == 1)
        #expect(client.statistics().deduplicatedJoins == 49)
        #expect(client.inFlightRequestCount == 0)
    }

    @Test("different variables, or different sessions, are not joined")
    func differentQueriesAreNotJoined() async throws {
        let harness = try await ClientHarness("gqldedupdiff")
        try await harness.tenant.setLatency(milliseconds: 100, operation: "AccountBalance")
        let alice = try harness.client(.alice)
        let bob = try harness.client(.bob)
        async let first = alice.fetch(query: AccountBalanceQuery(id: "101"))
        async let second = alice.fetch(query: AccountBalanceQuery(id: "102"))
        async let third = bob.fetch(query: AccountBalanceQuery(id: "201"))
        let balances = try await [first.value(), second.value(), third.value()].map { $0.data.account?.balance }
        #expect(balances == [2500, 10000, 1200.5])
        #expect(try await harness.count("AccountBalance") == 3)
        #expect(alice.statistics().deduplicatedJoins == 0)
    }

    @Test("an upstream error is shared by every waiter, and the next call retries")
    func errorsAreShared() async throws {
        let harness = try await ClientHarness("gqldeduperr")
        try await harness.tenant.holdAnswers(operation: "AccountSummary")
        try await harness.tenant.inject(.status(502), operation: "AccountSummary")
        let client = try harness.client()
        let group = Task {
            await withTaskGroup(of: GraphQLCacheError.Code?.self) { group in
                for _ in 0..<10 {
                    group.addTask { await client.fetch(query: AccountSummaryQuery()).failure?.code }
                }
                var all: [GraphQLCacheError.Code?] = []
                for await code in group {
                    all.append(code)
                }
                return all
            }
        }
        try await waitUntil { client.inFlightWaiterCount == 10 }
        try await harness.tenant.releaseHeldAnswers()
        let codes = await group.value
        #expect(codes.allSatisfy { $0 == .httpStatus })
        #expect(try await harness.count("AccountSummary") == 1)
        try await harness.tenant.setLatency(milliseconds: 0)
        #expect(try await client.fetch(query: AccountSummaryQuery()).value().source == .network)
    }

    @Test("one waiter cancelling leaves the others and the upstream call alone")
    func cancellingOneWaiter() async throws {
        let harness = try await ClientHarness("gqldedupcancel")
        try await harness.tenant.holdAnswers(operation: "AccountSummary")
        let client = try harness.client()
        let leader = Task { await client.fetch(query: AccountSummaryQuery()) }
        try await waitUntil { try await harness.count("AccountSummary") == 1 }
        let quitter = Task { await client.fetch(query: AccountSummaryQuery()) }
        let stayer = Task { await client.fetch(query: AccountSummaryQuery()) }
        try await waitUntil { client.inFlightWaiterCount == 3 }
        quitter.cancel()
        #expect(await quitter.value.failure?.code == .cancelled)
        try await harness.tenant.releaseHeldAnswers()
        #expect(try await leader.value.value().wasStored)
        #expect(try await stayer.value.value().data.accounts.count == 2)
        #expect(try await harness.count("AccountSummary") == 1)
    }

    @Test("a clear during flight: the answer is delivered but not stored")
    func clearDuringFlight() async throws {
        let harness = try await ClientHarness("gqlinflightclear")
        try await harness.tenant.holdAnswers(operation: "AccountSummary")
        let client = try harness.client()
        let inFlight = Task { await client.fetch(query: AccountSummaryQuery()) }
        try await waitUntil { try await harness.count("AccountSummary") == 1 }
        let report = await client.cacheManager().clearCache(reason: .logout)
        #expect(report.target == .all)
        try await harness.tenant.releaseHeldAnswers()
        let delivered = try await inFlight.value.value()
        #expect(delivered.source == .network)
        #expect(!delivered.wasStored)
        #expect(delivered.data.accounts.count == 2)
        #expect(harness.store.recordCount(in: client.scope) == 0)
        #expect(client.queryTimestamps.isEmpty)
    }

    @Test("an account clear during a mutation keeps the mutation's result out too")
    func accountClearDuringMutation() async throws {
        let harness = try await ClientHarness("gqlinflightmutation")
        try await harness.tenant.holdAnswers(operation: "MakePayment")
        let client = try harness.client()
        _ = try await client.fetch(query: AccountBalanceQuery(id: "102")).value()
        let payment = Task { await client.perform(mutation: MakePaymentMutation(fromAccountId: "101", amount: 5)) }
        try await waitUntil { try await harness.count("MakePayment") == 1 }
        await client.cacheManager().clearCache(forAccountId: "101")
        try await harness.tenant.releaseHeldAnswers()
        let result = try await payment.value.value()
        #expect(result.data.makePayment.account.balance == 2495)
        #expect(!result.wasStored)
        #expect(harness.store.record("Account:101", in: client.scope) == nil)
        #expect(harness.store.record("Account:102", in: client.scope) != nil)
    }
}
