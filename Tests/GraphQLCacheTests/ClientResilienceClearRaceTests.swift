import CacheCore
import FixtureSupport
import GraphQLCache
import Testing

@Suite("GraphQL client: clears and logout win over background completions")
struct ClientResilienceClearRaceTests {
    private let softTimeout = CacheResilience(failSafeMaxDuration: .seconds(3600), softTimeout: .milliseconds(50))

    @Test("a soft-timeout completion that lands after its scope was cleared is never stored")
    func softTimeoutCompletionAfterClear() async throws {
        let harness = try await ClientHarness("gqlracesoftclear")
        let client = try harness.resilientClient(softTimeout)
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        harness.clock.advance(by: .seconds(90))
        try await harness.tenant.holdAnswers(operation: "AccountSummary")
        #expect(try await client.fetch(query: AccountSummaryQuery()).value().staleReason == .softTimeout)
        try await waitUntil { try await harness.count("AccountSummary") == 2 }
        _ = await client.cacheManager().clearCache(reason: .logout)
        try await harness.tenant.releaseHeldAnswers()
        try await waitUntil { client.inFlightRequestCount == 0 }
        #expect(harness.store.recordCount(in: client.scope) == 0)
        #expect(client.queryTimestamps.isEmpty)
    }

    @Test("a soft-timeout completion for a session that ended is never stored")
    func softTimeoutCompletionAfterLogout() async throws {
        let harness = try await ClientHarness("gqlracesoftclose")
        let client = try harness.resilientClient(softTimeout)
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        harness.clock.advance(by: .seconds(90))
        try await harness.tenant.holdAnswers(operation: "AccountSummary")
        #expect(try await client.fetch(query: AccountSummaryQuery()).value().staleReason == .softTimeout)
        try await waitUntil { try await harness.count("AccountSummary") == 2 }
        client.close()
        try await harness.tenant.releaseHeldAnswers()
        try await waitUntil { client.inFlightRequestCount == 0 }
        // Another client of the same scope still finds only the old answer: the completion was not merged.
        let reader = try harness.resilientClient(.none)
        let cached = try await reader.fetch(query: AccountSummaryQuery(), cachePolicy: .returnCacheDataDontFetch)
            .value()
        #expect(cached.isStale)
        #expect(cached.age == .seconds(90))
    }

    @Test("an eager refresh that lands after its scope was cleared is never stored")
    func eagerRefreshAfterClear() async throws {
        let harness = try await ClientHarness("gqlraceeagerclear")
        let client = try harness.resilientClient(CacheResilience(eagerRefreshThreshold: 0.5))
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        harness.clock.advance(by: .seconds(40))
        try await harness.tenant.holdAnswers(operation: "AccountSummary")
        #expect(try await client.fetch(query: AccountSummaryQuery()).value().staleReason == .eagerRefresh)
        try await waitUntil { try await harness.count("AccountSummary") == 2 }
        harness.store.clear(scope: client.scope, reason: .logout)
        try await harness.tenant.releaseHeldAnswers()
        await client.waitForBackgroundRefreshes()
        #expect(harness.store.recordCount(in: client.scope) == 0)
    }
}
