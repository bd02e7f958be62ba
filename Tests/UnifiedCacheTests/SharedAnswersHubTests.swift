import FixtureSupport
import Foundation
import RedisReplication
import Testing

@testable import UnifiedCache

@Suite("Hub: answers shared between sessions are counted, cleared hub-wide, and keep their hints from L2")
struct SharedAnswersHubTests {
    private let rates = UntypedGraphQLOperation(
        document: "query ExchangeRates { exchangeRates { currency rate } }", operationName: "ExchangeRates")

    /// A hub whose sessions share PUBLIC GraphQL answers.
    private func sharingHub(_ tenant: FixtureTenant, clock: ManualCacheClock) throws -> CacheHub {
        try CacheHub(
            configuration: .init(
                restBaseURL: tenant.baseURL, graphQLEndpoint: tenant.graphqlURL,
                rest: .init(honorsHTTPCaching: true), graphQL: .init(sharesPublicResponses: true),
                maintenance: .init(interval: nil)
            ).withBankingPresets(),
            settings: try SettingsStore(settings: .banking), clock: clock)
    }

    private func session(_ hub: CacheHub, _ user: FixtureTenant.User) -> CacheSession {
        hub.session(
            id: "session-\(user.rawValue)", principal: VerifiedPrincipal(user.rawValue),
            credentials: .bearer(user.token))
    }

    @Test("the hub's statistics count shared hits: GraphQL answers of another session and REST shared-scope hits")
    func sharedHitsCounted() async throws {
        let tenant = try await FixtureServer.tenant("hub-shared-hits")
        let clock = ManualCacheClock()
        let hub = try sharingHub(tenant, clock: clock)
        defer { Task { await hub.shutdown() } }
        _ = try await session(hub, .alice).graphQL.fetch(operation: rates).get()
        #expect(hub.statistics().sharedHits == 0)
        #expect(try await session(hub, .bob).graphQL.fetch(operation: rates).get().source == .cache)
        #expect(hub.statistics().sharedHits == 1)

        let flags = SecondLevelGET(path: "/api/feature-flags", key: "flags", isShared: true)
        #expect(try await session(hub, .alice).source(of: flags).source == .network)
        #expect(try await session(hub, .bob).source(of: flags).source == .cache)
        #expect(hub.statistics().sharedHits == 2)
    }

    @Test("a settings reload that clears domains drops the shared GraphQL answers of every session")
    func reloadDropsSharedAnswers() async throws {
        let tenant = try await FixtureServer.tenant("hub-shared-reload")
        let clock = ManualCacheClock()
        let hub = try sharingHub(tenant, clock: clock)
        defer { Task { await hub.shutdown() } }
        _ = try await session(hub, .alice).graphQL.fetch(operation: rates).get()
        #expect(hub.graphQLStore.sharedPublicResponseCount == 1)
        let json = Data(#"{"domainMap": "banking", "domains": {"balances": {"policy": 10}}}"#.utf8)
        _ = try await hub.reloadSettings(from: .json(json, source: "test"), clearingAffectedDomains: true)
        #expect(hub.graphQLStore.sharedPublicResponseCount == 0)
        #expect(try await session(hub, .bob).graphQL.fetch(operation: rates).get().source == .network)
        #expect(try await tenant.counters().operation("ExchangeRates") == 2)
    }

    @Test("a settings reload that clears a domain drops its entries of REST's shared scope too")
    func reloadDropsSharedScopeEntries() async throws {
        let tenant = try await FixtureServer.tenant("hub-shared-reload-rest")
        let clock = ManualCacheClock()
        let hub = try sharingHub(tenant, clock: clock)
        defer { Task { await hub.shutdown() } }
        let flags = SecondLevelGET(path: "/api/feature-flags", key: "featureFlags.all", isShared: true)
        let other = SecondLevelGET(path: "/api/tenant-notice", key: "tenant.notice", isShared: true)
        _ = try await session(hub, .alice).source(of: flags)
        _ = try await session(hub, .alice).source(of: other)
        let json = Data(#"{"domainMap": "banking", "domains": {"featureFlags": {"policy": 10}}}"#.utf8)
        _ = try await hub.reloadSettings(from: .json(json, source: "test"), clearingAffectedDomains: true)
        #expect(try await session(hub, .bob).source(of: flags).source == .network)
        #expect(try await session(hub, .bob).source(of: other).source == .cache)
        #expect(try await tenant.counters().route("GET /api/feature-flags") == 2)
    }

    @Test("an answer merged from the second level ends with its upstream max-age, not the local lifetime from the read")
    func secondLevelMergeKeepsHints() async throws {
        let harness = try await SecondLevelHarness("l2-shared-hints")
        defer { Task { await harness.shutdown() } }
        // The rates answer says max-age 60 (the rate hint); the local lifetime is the default 300 s.
        #expect(try await harness.session(harness.a, .alice).graphQL.fetch(operation: rates).get().source == .network)
        try await harness.waitForWrites(harness.a, 1)
        harness.clock.advance(seconds: 50)
        let onB = harness.session(harness.b, .alice)
        #expect(try await onB.graphQL.fetch(operation: rates).get().source == .cache)
        harness.clock.advance(seconds: 9)
        #expect(try await onB.graphQL.fetch(operation: rates).get().source == .cache)
        harness.clock.advance(seconds: 2)  // 61 s after A's fetch
        #expect(try await onB.graphQL.fetch(operation: rates).get().source == .network)
        #expect(try await harness.counters().operation("ExchangeRates") == 2)
    }
}
