import CoreMetrics
import MetricsTestKit
import Synchronization
import Testing
import UnifiedCache
import UnifiedCacheMetrics

@Suite("Metrics: the hub's series in swift-metrics")
struct MetricsIntegrationTests {
    @Test("hits, misses, fetches, inserts, sessions by ending and memory become counters and gauges")
    func hubSeries() async throws {
        let metrics = TestMetrics()
        let harness = try await IntegrationHarness("metrics-hub")
        let mirror = CacheHubMetrics(hub: harness.hub, factory: metrics)
        try await harness.exerciseEveryEventKind()
        mirror.collect()

        let rest = [("part", "rest"), ("scope", "all")]
        #expect(try metrics.expectCounter("ucache_hits_total", rest).totalValue == 1)
        #expect(try metrics.expectCounter("ucache_misses_total", rest).totalValue == 1)
        #expect(try metrics.expectCounter("ucache_network_fetches_total", rest).totalValue == 1)
        #expect(try metrics.expectCounter("ucache_inserts_total", rest).totalValue == 1)
        #expect(try metrics.expectCounter("ucache_sessions_created_total").totalValue == 1)
        #expect(try metrics.expectGauge("ucache_sessions").lastValue == 0)
        #expect(try metrics.expectGauge("ucache_memory_budget_bytes").lastValue ?? 0 > 0)
        let endings = metrics.counters.filter { $0.label == "ucache_sessions_ended_total" }
        #expect(endings.contains { $0.dimensions.contains { $0 == ("reason", "logout") } && $0.totalValue == 1 })

        // A second collection adds only what happened since.
        _ = try await harness.alice.rest.perform(with: IntegrationHarness.balance).get()
        _ = try await harness.alice.rest.perform(with: IntegrationHarness.balance).get()
        mirror.collect()
        #expect(try metrics.expectCounter("ucache_hits_total", rest).totalValue == 2)
        #expect(try metrics.expectCounter("ucache_misses_total", rest).totalValue == 2)

        for counter in metrics.counters {
            #expect(IntegrationHarness.revealsSecret("\(counter.label) \(counter.dimensions)") == nil)
        }
    }

    @Test("upstream calls are timed by part, outcome and status class, never by route or session")
    func operationTimers() async throws {
        let metrics = TestMetrics()
        let harness = try await IntegrationHarness(
            "metrics-timers", instrumentation: CacheOperationMetrics(factory: metrics))
        try await harness.exerciseEveryEventKind()

        let rest = try metrics.expectTimer(
            "ucache_upstream_request_duration_seconds",
            [("part", "rest"), ("outcome", "miss"), ("status_class", "2xx")])
        #expect(rest.values.count == 1)
        let graphQL = try metrics.expectTimer(
            "ucache_upstream_request_duration_seconds",
            [("part", "graphql"), ("outcome", "miss"), ("status_class", "2xx")])
        #expect(graphQL.values.count == 1)
        #expect(
            try metrics.expectTimer("ucache_session_end_duration_seconds", [("reason", "logout")]).values.count == 1)
        for timer in metrics.timers {
            #expect(IntegrationHarness.revealsSecret("\(timer.label) \(timer.dimensions)") == nil)
            #expect(!timer.dimensions.contains { $0.0 == "route" || $0.0 == "session" })
        }
    }

    @Test("a counter that went down (a new hub) counts its whole value again; summaries and junk are skipped")
    func counterReset() throws {
        let metrics = TestMetrics()
        let text = SharedText(
            "# TYPE ucache_hits_total counter\nucache_hits_total{part=\"rest\",scope=\"session\"} 5\n"
                + "# TYPE ucache_l2_read_latency_seconds summary\nucache_l2_read_latency_seconds_sum 0.5\nnot a sample\n"
        )
        let mirror = CacheHubMetrics(factory: metrics) { text.value }
        mirror.collect()
        text.value = "# TYPE ucache_hits_total counter\nucache_hits_total{part=\"rest\",scope=\"session\"} 2\n"
        mirror.collect()

        let hits = try metrics.expectCounter("ucache_hits_total", [("part", "rest"), ("scope", "session")])
        #expect(hits.totalValue == 7)
        #expect(metrics.recorders.isEmpty && metrics.counters.count == 1)
    }
}

/// Text a test changes between collections.
final class SharedText: Sendable {
    private let storage: Mutex<String>
    init(_ value: String) { storage = Mutex(value) }
    var value: String {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
