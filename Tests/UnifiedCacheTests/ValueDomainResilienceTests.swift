import CacheCore
import FixtureSupport
import Foundation
import Testing

@testable import UnifiedCache

/// The settings file's per-domain resilience keys on the value door: a domain's options reach the values it names by
/// tag (`valueTags`), like its REST entries and GraphQL operations.
@Suite("Value door: a domain's resilience keys reach the values tagged for it")
struct ValueDomainResilienceTests {
    struct FactoryDown: Error {}

    private let options = ValueCacheOptions(duration: .seconds(30))

    private func settings(_ balances: String) throws -> SettingsStore {
        let json = #"""
            {"domainMap": "banking", "domains": {"balances": {"valueTags": ["balancesDashboard"], \#(balances)}}}
            """#
        return try SettingsStore(settings: try parseSettings(json))
    }

    @Test("A domain's fail-safe answers for its tagged value; a value outside the domain gets the factory's error")
    func domainFailSafe() async throws {
        let harness = try await FacadeHarness("vdr-failsafe", settings: settings(#""failSafeMaxDuration": 3600"#))
        let values = harness.hub.values
        _ = try await values.value(forKey: "tagged", tags: ["balancesDashboard"], options: options) { 1 }
        _ = try await values.value(forKey: "other", tags: ["profile"], options: options) { 2 }
        harness.clock.advance(by: .seconds(31))
        _ = await harness.hub.runMaintenance()

        let failing: @Sendable () async throws -> Int = { throw FactoryDown() }
        #expect(
            try await values.value(forKey: "tagged", tags: ["balancesDashboard"], options: options, factory: failing)
                == 1)
        await #expect(throws: FactoryDown.self) {
            try await values.value(forKey: "other", tags: ["profile"], options: options, factory: failing)
        }
        #expect(harness.hub.metricsText().contains(#"ucache_stale_answers_total{part="values",reason="fail_safe"} 1"#))
    }

    @Test("A domain's eager-refresh threshold refreshes its tagged value once past it, and never before")
    func domainEagerRefresh() async throws {
        let harness = try await FacadeHarness("vdr-eager", settings: settings(#""eagerRefreshThreshold": 0.5"#))
        let values = harness.session(.alice).values
        let runs = CallCounter()
        let make: @Sendable () async throws -> Int = { runs.increment() }
        _ = try await values.value(forKey: "n", tags: ["balancesDashboard"], options: options, factory: make)
        _ = try await values.value(forKey: "untagged", options: options, factory: make)
        harness.clock.advance(by: .seconds(10))  // a third of its life
        _ = try await values.value(forKey: "n", tags: ["balancesDashboard"], options: options, factory: make)
        await harness.hub.valueCore.backgroundRefreshes.drain()
        #expect(runs.count == 2)

        harness.clock.advance(by: .seconds(8))  // 60 %
        #expect(
            try await values.value(forKey: "n", tags: ["balancesDashboard"], options: options, factory: make) == 1)
        _ = try await values.value(forKey: "untagged", options: options, factory: make)
        await harness.hub.valueCore.backgroundRefreshes.drain()
        #expect(runs.count == 3)  // the tagged value's refresh only
        #expect(try await values.value(forKey: "n", tags: ["balancesDashboard"], options: options, factory: make) == 3)
    }

    @Test("A domain's out-of-range key is refused by the settings, so no value call runs under it")
    func invalidDomainKeyIsRefused() throws {
        #expect(throws: UnifiedCacheError.self) {
            _ = try settings(#""eagerRefreshThreshold": 1.5"#)
        }
    }
}
