import FixtureSupport
import Foundation
import RedisReplication
import Testing

@testable import UnifiedCache

@Suite("GraphQL results in the shared second level, merged into the normalized store as a network answer")
struct SecondLevelGraphQLTests {
    private let summary = UntypedGraphQLOperation(
        document: "query AccountSummary { accounts { id name balance } }", operationName: "AccountSummary")
    private let names = UntypedGraphQLOperation(
        document: "query AccountNames { accounts { id name } }", operationName: "AccountNames")

    @Test("B's first query of what A fetched is a cache hit, and a cache-only read of a sub-selection then succeeds")
    func hitThenSubSelection() async throws {
        let harness = try await SecondLevelHarness("l2-graphql")
        defer { Task { await harness.shutdown() } }
        #expect(try await harness.session(harness.a, .alice).graphQL.fetch(operation: summary).get().source == .network)
        try await harness.waitForWrites(harness.a, 1)

        let onB = harness.session(harness.b, .alice)
        let hit = try await onB.graphQL.fetch(operation: summary).get()

        #expect(hit.source == .cache)
        #expect(try await harness.counters().operation("AccountSummary") == 1)
        let subSelection = await onB.graphQL.fetch(operation: names, cachePolicy: .returnCacheDataDontFetch)
        #expect(try subSelection.get().source == .cache)
        #expect(try await harness.counters().operation("AccountNames") == 0)
    }

    @Test("another session misses; a GraphQL clear on A makes B fetch again")
    func isolationAndClear() async throws {
        let harness = try await SecondLevelHarness("l2-graphql-clear")
        defer { Task { await harness.shutdown() } }
        let onA = harness.session(harness.a, .alice)
        _ = try await onA.graphQL.fetch(operation: summary).get()
        try await harness.waitForWrites(harness.a, 1)
        #expect(try await harness.session(harness.b, .bob).graphQL.fetch(operation: summary).get().source == .network)

        await onA.cacheManager.clearAccountSummaryCache()

        #expect(try await harness.session(harness.b, .alice).graphQL.fetch(operation: summary).get().source == .network)
        #expect(try await harness.counters().operation("AccountSummary") == 3)
    }

    @Test("a result past the shortest freshness lifetime is not taken from the second level")
    func expiry() async throws {
        let harness = try await SecondLevelHarness("l2-graphql-expiry")
        defer { Task { await harness.shutdown() } }
        _ = try await harness.session(harness.a, .alice).graphQL.fetch(operation: summary).get()
        try await harness.waitForWrites(harness.a, 1)
        harness.clock.advance(seconds: 301)  // the default GraphQL timeout is 300 s

        #expect(try await harness.session(harness.b, .alice).graphQL.fetch(operation: summary).get().source == .network)
    }
}
