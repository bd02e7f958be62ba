import CacheCore
import FixtureSupport
import Foundation
import GraphQLCache
import RESTCache
import Synchronization
import Testing
import UnifiedCache

/// A cache of the application's own that fails to clear.
private struct BrokenPart: SessionCachePart {
    struct Failure: Error {}
    let name = "templates"
    func clearAll(sessionID: String, reason: ClearReason) async throws { throw Failure() }
}

/// A cache of the application's own that records what it was asked to clear.
private final class RecordingPart: SessionCachePart {
    let name = "webCache"
    let cleared = Mutex<[String]>([])
    func clearAll(sessionID: String, reason: ClearReason) async throws {
        cleared.withLock { $0.append("\(sessionID):\(reason)") }
    }
}

@Suite("clearAllCaches() is complete and resilient")
struct ClearAllResilienceTests {
    private let summary = UntypedGraphQLOperation(
        document: "query AccountSummary { accounts { id name } }",
        operationName: "AccountSummary"
    )

    @Test("every part runs even when one fails, and the report names the failure")
    func failingPartDoesNotStopTheOthers() async throws {
        let tenant = try await FixtureServer.tenant("resilience")
        let recording = RecordingPart()
        let hub = try CacheHub(
            configuration: .init(
                restBaseURL: tenant.baseURL,
                graphQLEndpoint: tenant.graphqlURL,
                sessionCacheParts: [BrokenPart(), recording]
            ).withBankingPresets(),
            settings: SettingsStore(settings: .banking)
        )
        let alice = hub.session(
            id: "s-alice", principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice"))
        _ = try await alice.rest.perform(with: CachedGET(path: "/api/accounts", key: "accountSummary.list")).get()
        #expect(await alice.graphQL.fetch(operation: summary).isSuccess)

        let report = await alice.cacheManager.clearAllCaches()
        #expect(!report.succeeded)
        #expect(report.failures.map(\.name) == ["templates"])
        #expect(report.parts.map(\.name) == ["rest", "graphql", "timestamps", "cookies", "templates", "webCache"])
        #expect(report.entries == 1)
        #expect(report.timestamps == 1)
        #expect(report.records > 0)
        #expect(recording.cleared.withLock { $0 } == ["s-alice:logout"])
        #expect(alice.cacheManager.getCacheStatistics().graphQLRecords == 0)
    }

    @Test("logout while a GraphQL query is in flight: the answer arrives, nothing lands in the store")
    func logoutDuringGraphQLFlight() async throws {
        let harness = try await FacadeHarness("gqlinflight")
        try await harness.tenant.holdAnswers(operation: "AccountSummary")
        let alice = harness.session(.alice)
        let inFlight = Task { await alice.graphQL.fetch(operation: summary) }
        try await waitUntil { try await harness.counters().operation("AccountSummary") == 1 }
        await alice.cacheManager.clearAllCaches()
        try await harness.tenant.releaseHeldAnswers()
        #expect(await inFlight.value.isSuccess)
        #expect(alice.cacheManager.getCacheStatistics().graphQLRecords == 0)
        #expect(!(await alice.graphQL.fetch(operation: summary, cachePolicy: .returnCacheDataDontFetch)).isSuccess)
    }

    @Test("a token clear reaches the account's GraphQL record through the learned id")
    func tokenClearReachesGraphQL() async throws {
        let harness = try await FacadeHarness("tokengql")
        let alice = harness.session(.alice)
        _ = try await alice.rest.perform(with: CachedGET(path: "/api/accounts", key: "accountSummary.list")).get()
        let balance = UntypedGraphQLOperation(
            document: "query AccountBalance($id: ID!) { account(id: $id) { id balance } }",
            operationName: "AccountBalance", variables: ["id": "101"])
        let other = UntypedGraphQLOperation(
            document: "query AccountBalance($id: ID!) { account(id: $id) { id balance } }",
            operationName: "AccountBalance", variables: ["id": "102"])
        #expect(await alice.graphQL.fetch(operation: balance).isSuccess)
        #expect(await alice.graphQL.fetch(operation: other).isSuccess)

        let report = await alice.cacheManager.clearCache(forAccountToken: "atok-101")
        #expect(report.records >= 1)
        #expect(!(await alice.graphQL.fetch(operation: balance, cachePolicy: .returnCacheDataDontFetch)).isSuccess)
        #expect(await alice.graphQL.fetch(operation: other, cachePolicy: .returnCacheDataDontFetch).isSuccess)
    }
}
