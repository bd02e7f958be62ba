import CacheCore
import FixtureSupport
import GraphQLCache
import Testing

/// The app's mutation types, as in the seed's Strategy 1.
private enum MutationType: Hashable, Sendable {
    case makePayment
    case updateProfile
}

/// The seed's `MakePaymentMutationResult`.
private struct MakePaymentMutationResult: MutationResultProvider {
    let accountId: String
    var extraCritical: [QueryDescriptor] = []

    var criticalRefetchQueries: [QueryDescriptor] {
        [
            QueryDescriptor(queryType: "AccountBalance", variables: ["id": .string(accountId)], priority: .critical),
            QueryDescriptor(queryType: "RecentTransactions", priority: .critical),
        ] + extraCritical
    }

    var backgroundRefetchQueries: [QueryDescriptor] {
        [
            QueryDescriptor(queryType: "Dashboard", priority: .background),
            QueryDescriptor(queryType: "AccountSummary", priority: .background),
        ]
    }
}

@Suite("GraphQL client: mutation refetch strategies")
struct ClientMutationRefetchTests {
    private func registry() -> GraphQLQueryRegistry {
        let registry = GraphQLQueryRegistry()
        registry.register(AccountBalanceQuery.self)
        registry.register(RecentTransactionsQuery.self)
        registry.register(AccountSummaryQuery.self)
        registry.register("Dashboard", document: "query Dashboard { me { id accounts { id balance } } }")
        return registry
    }

    @Test("Strategy 1 refetches every mapped query from the network, in parallel, once each")
    func strategyOne() async throws {
        let harness = try await ClientHarness("strategy1")
        let client = try harness.client()
        _ = try await client.fetch(query: AccountBalanceQuery(id: "101")).value()
        _ = try await client.fetch(query: RecentTransactionsQuery(accountId: "101")).value()
        let manager = MutationRefetchManager<MutationType>(client: client, registry: registry())
        manager.register(.makePayment, refetching: ["AccountBalance", "RecentTransactions", "Dashboard"])
        manager.register(.updateProfile) { _ in [QueryDescriptor(queryType: "Profile", priority: .critical)] }

        // The context's accountId feeds RecentTransactions; AccountBalance declares $id, so it gets that too.
        _ = try await client.perform(mutation: MakePaymentMutation(fromAccountId: "101", amount: 10)).value()
        // Held, not delayed: a fixed latency races the polling below on a loaded machine.
        try await harness.tenant.holdAnswers(operation: "RecentTransactions")
        try await harness.tenant.holdAnswers(operation: "Dashboard")
        let refetch = Task {
            await manager.refetchAfterMutation(.makePayment, context: ["accountId": "101", "id": "101"])
        }
        // Parallel: both slow queries reach the upstream before either answers.
        try await waitUntil {
            let counters = try await harness.tenant.counters()
            return counters.operation("RecentTransactions") == 2 && counters.operation("Dashboard") == 1
        }
        #expect(harness.networkCalls.filter { $0 == "RecentTransactions" }.count == 1)
        #expect(!harness.networkCalls.contains("Dashboard"))
        try await harness.tenant.releaseHeldAnswers()
        let report = await refetch.value
        #expect(report.succeeded)
        #expect(report.outcomes.map(\.descriptor.queryType) == ["AccountBalance", "RecentTransactions", "Dashboard"])
        #expect(report.outcomes.allSatisfy { $0.source == .network && $0.wasStored })
        #expect(try await harness.count("AccountBalance") == 2)
        let transactions = try await client.fetch(
            query: RecentTransactionsQuery(accountId: "101"),
            cachePolicy: .returnCacheDataDontFetch
        ).value()
        #expect(transactions.data.transactions.first?.amount == -10)

        let unregistered = await manager.refetchAfterMutation(.updateProfile, context: [:])
        #expect(!unregistered.succeeded)
        #expect(unregistered.failures.first?.error?.code == .invalidOperation)
    }

    @Test("Strategy 2: critical refetches are done when perform returns, background ones run after, in order")
    func strategyTwoOrdering() async throws {
        let harness = try await ClientHarness("strategy2")
        let client = try harness.client()
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        let smart = SmartMutationRefetchManager(client: client, registry: registry())
        // The first background query is slow: if they ran in parallel the second would finish first.
        try await harness.tenant.setLatency(milliseconds: 300, operation: "Dashboard")

        let outcome = await smart.perform(
            mutation: MakePaymentMutation(fromAccountId: "101", amount: 25),
            refetching: MakePaymentMutationResult(accountId: "101"),
            accountId: "101"
        )
        let payment = try outcome.result.value()
        #expect(payment.data.makePayment.account.balance == 2475)
        let refetch = try #require(outcome.refetch)
        #expect(refetch.critical.succeeded)
        #expect(refetch.critical.outcomes.map(\.source) == [.network, .network])
        #expect(try await harness.count("AccountBalance") == 1)
        #expect(try await harness.count("RecentTransactions") == 1)
        let callsWhenReturned = harness.networkCalls
        #expect(callsWhenReturned.contains("AccountBalance"))
        #expect(callsWhenReturned.contains("RecentTransactions"))
        let background = await refetch.background.report()
        #expect(background.succeeded)
        #expect(refetch.background.descriptors.map(\.queryType) == ["Dashboard", "AccountSummary"])
        // Cache then network: the summary was cached, so its first answer came from the cache, then the network.
        #expect(background.outcomes.map(\.source) == [.network, .network])
        let calls = harness.networkCalls
        let criticalDone = try #require(calls.lastIndex { ["AccountBalance", "RecentTransactions"].contains($0) })
        let dashboard = try #require(calls.lastIndex(of: "Dashboard"))
        let summary = try #require(calls.lastIndex(of: "AccountSummary"))
        #expect(criticalDone < dashboard)
        #expect(dashboard < summary)
        #expect(try await harness.count("AccountSummary") == 2)
    }

    @Test("Strategy 2 reports partial failure: one critical refetch fails, the others succeed")
    func strategyTwoPartialFailure() async throws {
        let harness = try await ClientHarness("strategy2fail")
        let client = try harness.client()
        let smart = SmartMutationRefetchManager(client: client, registry: registry())
        try await harness.tenant.inject(.status(500), operation: "RecentTransactions")
        var provider = MakePaymentMutationResult(accountId: "101")
        provider.extraCritical = [QueryDescriptor(queryType: "Unknown", priority: .critical)]
        let report = await smart.refetchAfterMutation(provider, accountId: "101")
        #expect(!report.critical.succeeded)
        #expect(report.critical.outcomes.map(\.succeeded) == [true, false, false])
        #expect(report.critical.failures.map(\.descriptor.queryType) == ["RecentTransactions", "Unknown"])
        #expect(report.critical.failures.first?.error?.httpStatus == 500)
        #expect(report.critical.failures.last?.error?.code == .invalidOperation)
        await smart.waitForBackgroundRefetches()
        #expect(await report.background.report().succeeded)
    }

    @Test("a failed mutation triggers no refetch")
    func failedMutationNoRefetch() async throws {
        let harness = try await ClientHarness("strategy2nomut")
        let client = try harness.client()
        let smart = SmartMutationRefetchManager(client: client, registry: registry())
        let outcome = await smart.perform(
            mutation: MakePaymentMutation(fromAccountId: "101", amount: -5),
            refetching: MakePaymentMutationResult(accountId: "101")
        )
        #expect(outcome.result.failure?.graphQLErrors.first?.code == "INVALID_AMOUNT")
        #expect(outcome.refetch == nil)
        await smart.waitForBackgroundRefetches()
        #expect(try await harness.count("AccountBalance") == 0)
    }
}
