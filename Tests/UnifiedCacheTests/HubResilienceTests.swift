import CacheCore
import FixtureSupport
import Foundation
import GraphQLCache
import RESTCache
import Testing

@testable import UnifiedCache

/// The hub's resilience default and the settings file's per-domain keys, through a session's REST door.
@Suite("Hub resilience: the hub default, per-domain settings and the stale-answer counters")
struct HubResilienceTests {
    private let route = "GET /api/accounts"
    private let accounts = CachedGET(path: "/api/accounts", key: "accountSummary.list", domains: ["accountSummary"])

    @Test("The hub default gives REST fail-safe; the answer is stale, counted and exported per reason")
    func hubDefaultFailSafe() async throws {
        let harness = try await FacadeHarness(
            "hr-default", resilience: CacheResilience(failSafeMaxDuration: .seconds(3_600)))
        let session = harness.session(.alice)
        _ = try await session.rest.performWithSource(with: accounts).get()
        harness.clock.advance(by: .seconds(601))
        _ = await harness.hub.runMaintenance()
        try await harness.tenant.inject(.status(503), route: route, count: 5)
        let served = try await session.rest.performWithSource(with: accounts).get()
        #expect(served.isStale)
        #expect(served.staleReason == .failSafe)
        let text = harness.hub.metricsText()
        #expect(text.contains(#"ucache_stale_answers_total{part="rest",reason="fail_safe"} 1"#))
        #expect(text.contains(#"ucache_stale_answers_total{part="rest",reason="soft_timeout"} 0"#))
    }

    @Test("The hub default reaches the GraphQL door: a failing operation is answered stale from fail-safe")
    func hubDefaultReachesGraphQL() async throws {
        let harness = try await FacadeHarness(
            "hr-graphql", resilience: CacheResilience(failSafeMaxDuration: .seconds(3_600)))
        let session = harness.session(.alice)
        #expect(try await session.graphQL.fetch(operation: accountBalanceQuery).get().staleReason == nil)
        harness.clock.advance(by: .seconds(601))
        _ = await harness.hub.runMaintenance()
        try await harness.tenant.inject(.status(503), operation: "AccountBalance", count: 5)
        let served = try await session.graphQL.fetch(operation: accountBalanceQuery).get()
        #expect(served.isStale)
        #expect(served.staleReason == .failSafe)
    }

    @Test("A domain's settings keys reach the GraphQL operations it names; without them the error is the answer")
    func perDomainSettingsReachGraphQL() async throws {
        let json = #"""
            { "domainMap": "banking", "domains": { "balances": { "failSafeMaxDuration": 3600 } } }
            """#
        let settings = try SettingsStore(settings: CacheSettings(json: Array(json.utf8)))
        let harness = try await FacadeHarness("hr-graphql-domain", settings: settings)
        let session = harness.session(.alice)
        _ = try await session.graphQL.fetch(operation: accountBalanceQuery).get()
        harness.clock.advance(by: .seconds(601))
        _ = await harness.hub.runMaintenance()
        try await harness.tenant.inject(.status(503), operation: "AccountBalance", count: 5)
        #expect(try await session.graphQL.fetch(operation: accountBalanceQuery).get().staleReason == .failSafe)

        let plain = try await FacadeHarness("hr-graphql-plain")
        let alice = plain.session(.alice)
        _ = try await alice.graphQL.fetch(operation: accountBalanceQuery).get()
        plain.clock.advance(by: .seconds(601))
        _ = await plain.hub.runMaintenance()
        try await plain.tenant.inject(.status(503), operation: "AccountBalance", count: 5)
        await #expect(throws: GraphQLCacheError.self) {
            try await alice.graphQL.fetch(operation: accountBalanceQuery).get()
        }
    }

    @Test("A hub that never served a stale answer exports no stale-answer series")
    func noSeriesWithoutStaleAnswers() async throws {
        let harness = try await FacadeHarness("hr-quiet")
        _ = try await harness.session(.alice).rest.performWithSource(with: accounts).get()
        #expect(!harness.hub.metricsText().contains("ucache_stale_answers_total"))
    }

    @Test("A domain's settings keys turn fail-safe on for its entries, and a reload turns it off again")
    func perDomainSettings() async throws {
        let json = #"""
            { "domainMap": "banking", "domains": { "accountSummary": { "failSafeMaxDuration": 3600, "failSafeThrottleDuration": 5 } } }
            """#
        let settings = try SettingsStore(settings: CacheSettings(json: Array(json.utf8)))
        #expect(settings.current.domainResilience["accountSummary"]?.failSafeMaxDuration == .seconds(3_600))
        let harness = try await FacadeHarness("hr-domain", settings: settings)
        let session = harness.session(.alice)
        _ = try await session.rest.performWithSource(with: accounts).get()
        harness.clock.advance(by: .seconds(601))
        _ = await harness.hub.runMaintenance()
        try await harness.tenant.inject(.status(503), route: route, count: 5)
        #expect(try await session.rest.performWithSource(with: accounts).get().staleReason == .failSafe)

        try settings.reload(from: .json(Data(#"{ "domainMap": "banking" }"#.utf8), source: "reloaded"))
        harness.clock.advance(by: .seconds(6))  // past the throttle
        guard case .failure(let error) = await session.rest.performWithSource(with: accounts) else {
            Issue.record("with fail-safe off again, the upstream's error must be the answer")
            return
        }
        #expect(error.status == 503)
    }

    @Test("A reload that adds a domain's keys turns fail-safe on for a hub that started without any")
    func reloadTurnsDomainOptionsOn() async throws {
        let settings = try SettingsStore(settings: CacheSettings(json: Array(#"{ "domainMap": "banking" }"#.utf8)))
        let harness = try await FacadeHarness("hr-domain-on", settings: settings)
        let session = harness.session(.alice)
        _ = try await session.rest.performWithSource(with: accounts).get()
        let json = #"{ "domainMap": "banking", "domains": { "accountSummary": { "failSafeMaxDuration": 3600 } } }"#
        try settings.reload(from: .json(Data(json.utf8), source: "reloaded"))
        harness.clock.advance(by: .seconds(601))
        try await harness.tenant.inject(.status(503), route: route, count: 5)
        #expect(try await session.rest.performWithSource(with: accounts).get().staleReason == .failSafe)
    }

    @Test("Settings keys round-trip through the settings file the hub writes")
    func settingsRoundTrip() throws {
        let json = #"""
            { "domainMap": "banking", "domains": { "balances": { "softTimeout": 0.1, "hardTimeout": 2, "eagerRefreshThreshold": 0.9 } } }
            """#
        let settings = try CacheSettings(json: Array(json.utf8))
        #expect(try CacheSettings(json: settings.jsonData()) == settings)
        #expect(settings.domainResilience["balances"]?.eagerRefreshThreshold == 0.9)
    }

    @Test("Out-of-range settings keys and hub options are refused with invalidSettings")
    func invalidOptionsAreRefused() async throws {
        let bad = #"{ "domainMap": "banking", "domains": { "balances": { "eagerRefreshThreshold": 1.2 } } }"#
        #expect(throws: UnifiedCacheError.self) { try CacheSettings(json: Array(bad.utf8)) }
        let negative = #"{ "domainMap": "banking", "domains": { "balances": { "softTimeout": -1 } } }"#
        #expect(throws: UnifiedCacheError.self) { try CacheSettings(json: Array(negative.utf8)) }
        let error = await #expect(throws: UnifiedCacheError.self) {
            _ = try await FacadeHarness("hr-bad", resilience: CacheResilience(eagerRefreshThreshold: 2))
        }
        #expect(error?.code == .invalidSettings)
    }
}
