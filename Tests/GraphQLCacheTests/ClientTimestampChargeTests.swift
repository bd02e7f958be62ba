import CacheCore
import CurlHTTP
import FixtureSupport
import GraphQLCache
import Testing

@Suite("Query timestamps are charged to the memory budget while they are kept")
struct ClientTimestampChargeTests {
    /// What one timestamp is charged: a fixed overhead, its operation name and its variables twice.
    private func expectedCharge(_ timestamps: [GraphQLQueryTimestamp]) -> Int {
        timestamps.reduce(0) { total, timestamp in
            total + 224 + timestamp.queryKey.operationName.utf8.count
                + 2 * timestamp.queryKey.canonicalVariables.utf8.count
        }
    }

    @Test("each kept timestamp is charged; those forgotten past the limit and those cleared are released")
    func chargedWhileKept() async throws {
        let budget = try MemoryBudget(limit: 64 << 20)
        let harness = try await ClientHarness("tscharge")
        let store = try makeNormalizedStore(clock: harness.clock, budget: budget)
        var configuration = GraphQLClient.Configuration()
        configuration.maximumTrackedQueries = 4
        let client = try GraphQLClient(
            url: harness.tenant.graphqlURL, transport: harness.transport, store: store, scope: .session("alice"),
            credentials: .bearer(FixtureTenant.User.alice.token), configuration: configuration)

        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        _ = try await client.fetch(query: AccountBalanceQuery(id: "101")).value()
        let twoKept = budget.usedBytes - store.statistics().byteCount
        #expect(twoKept == expectedCharge(client.queryTimestamps))
        #expect(twoKept > 2 * 224)

        _ = try await client.fetch(query: AccountBalanceQuery(id: "102")).value()
        _ = try await client.fetch(query: RecentTransactionsQuery(accountId: "101")).value()
        harness.clock.advance(by: .seconds(1))
        _ = try await client.fetch(query: ProfileQuery()).value()
        // Five stored, four kept: the oldest was forgotten and released.
        #expect(client.queryTimestamps.count == 4)
        #expect(budget.usedBytes - store.statistics().byteCount == expectedCharge(client.queryTimestamps))

        let report = await client.cacheManager().clearCache()
        #expect(report.timestamps == 4)
        #expect(budget.usedBytes == 0)
    }

    @Test("a client that goes away releases what its timestamps were charged")
    func releasedWithTheClient() async throws {
        let budget = try MemoryBudget(limit: 64 << 20)
        let harness = try await ClientHarness("tsdealloc")
        let store = try makeNormalizedStore(clock: harness.clock, budget: budget)
        do {
            let client = try GraphQLClient(
                url: harness.tenant.graphqlURL, transport: harness.transport, store: store, scope: .session("bob"),
                credentials: .bearer(FixtureTenant.User.bob.token))
            _ = try await client.fetch(query: ProfileQuery()).value()
            #expect(budget.usedBytes > store.statistics().byteCount)
        }
        #expect(budget.usedBytes == store.statistics().byteCount)
    }
}
