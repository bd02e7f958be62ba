import FixtureSupport
import Testing

@testable import UnifiedCache

@Suite("The value door in the hub's metrics: absent until used, then its own series and counters")
struct ValueMetricsTests {
    @Test("a hub that never cached a value exports no value series; after a miss and a hit it exports both")
    func valueSeriesAppearOnceUsed() async throws {
        let harness = try await FacadeHarness("values-metrics")
        let hub = harness.hub
        let before = hub.metricsText()
        #expect(!before.contains("part=\"values\""))
        #expect(!before.contains("ucache_values_"))

        let values = harness.session(.alice).values
        let make: @Sendable () async throws -> Int = { 7 }
        #expect(try await values.value(forKey: "seven", factory: make) == 7)
        #expect(try await values.value(forKey: "seven", factory: make) == 7)

        let text = hub.metricsText()
        #expect(text.contains("ucache_hits_total{part=\"values\",scope=\"all\"} 1\n"))
        #expect(text.contains("ucache_misses_total{part=\"values\",scope=\"all\"} 1\n"))
        #expect(text.contains("ucache_values_factory_runs_total 1\n"))
        #expect(text.contains("ucache_values_discarded_after_clear_total 0\n"))
        let names = Set(hub.metricFamilies().map(\.name))
        #expect(names.contains("ucache_values_factory_runs_total"))
        #expect(names.contains("ucache_values_decode_failures_total"))
    }

    @Test("a factory that throws is counted as a failure and stores nothing")
    func failuresAreCounted() async throws {
        struct Refused: Error {}
        let harness = try await FacadeHarness("values-metrics-failure")
        let values = harness.session(.alice).values
        await #expect(throws: Refused.self) {
            _ = try await values.value(forKey: "broken") { () async throws -> Int in throw Refused() }
        }

        let text = harness.hub.metricsText()
        #expect(text.contains("ucache_values_factory_runs_total 1\n"))
        #expect(text.contains("ucache_values_factory_failures_total 1\n"))
        #expect(text.contains("ucache_entries{part=\"values\",scope=\"all\"} 0\n"))
    }
}
