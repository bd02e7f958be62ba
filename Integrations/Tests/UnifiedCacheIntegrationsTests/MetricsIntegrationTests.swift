import CoreMetrics
import Foundation
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

    @Test("upstream calls are http.client.request.duration with OpenTelemetry's attributes, never a raw path")
    func operationTimers() async throws {
        let metrics = TestMetrics()
        let harness = try await IntegrationHarness(
            "metrics-timers", instrumentation: CacheOperationMetrics(factory: metrics))
        try await harness.exerciseEveryEventKind()
        _ = await harness.alice.rest.perform(with: Status(code: 503))

        let upstream = try #require(URLComponents(string: harness.tenant.baseURL))
        let server = [
            ("server.address", try #require(upstream.host)), ("server.port", "\(try #require(upstream.port))"),
        ]
        let rest = try metrics.expectTimer(
            "http.client.request.duration",
            [("http.request.method", "GET")] + server + [
                ("url.template", "/api/accounts/{id}/balance"), ("http.response.status_code", "200"),
            ])
        #expect(rest.values.count == 1)
        let failed = try metrics.expectTimer(
            "http.client.request.duration",
            [("http.request.method", "GET")] + server + [
                ("url.template", "/api/status/{id}"), ("http.response.status_code", "503"), ("error.type", "503"),
            ])
        #expect(failed.values.count == 1)
        let endpoint = CacheRouteTemplate.of(try #require(URLComponents(string: harness.tenant.graphqlURL)).path)
        let graphQL = try metrics.expectTimer(
            "http.client.request.duration",
            [("http.request.method", "POST")] + server + [
                ("url.template", endpoint), ("http.response.status_code", "200"),
            ])
        #expect(graphQL.values.count == 1)
        #expect(
            try metrics.expectTimer("ucache.session.end.duration", [("ucache.reason", "logout")]).values.count == 1)
        for timer in metrics.timers {
            #expect(IntegrationHarness.revealsSecret("\(timer.label) \(timer.dimensions)") == nil)
            #expect(!timer.dimensions.contains { $0.0 == "route" || $0.0 == "session" })
        }
        #expect(Set(metrics.timers.map(\.label)) == ["http.client.request.duration", "ucache.session.end.duration"])
    }

    @Test("the hub's families are read as values: a counter that went down counts again; summaries are not mirrored")
    func counterReset() throws {
        let metrics = TestMetrics()
        let families = SharedFamilies([Self.hits(5), Self.latency])
        let mirror = CacheHubMetrics(factory: metrics) { families.value }
        mirror.collect()
        families.value = [Self.hits(2)]
        mirror.collect()

        let hits = try metrics.expectCounter("ucache_hits_total", [("part", "rest"), ("scope", "session")])
        #expect(hits.totalValue == 7)
        #expect(metrics.recorders.isEmpty && metrics.timers.isEmpty && metrics.counters.count == 1)
    }

    @Test("label values are snake_case: every session-end reason, replication and second-level rejections")
    func snakeCaseLabels() async throws {
        let metrics = TestMetrics()
        let harness = try await IntegrationHarness("metrics-labels")
        let mirror = CacheHubMetrics(hub: harness.hub, factory: metrics)
        _ = try await harness.alice.rest.perform(with: IntegrationHarness.balance).get()
        _ = await harness.hub.endSession(id: "session-alice", reason: .sessionExpired)
        mirror.collect()

        let expired = try metrics.expectCounter("ucache_sessions_ended_total", [("reason", "session_expired")])
        #expect(expired.totalValue == 1)
        let reasons = Set(
            metrics.counters.filter { $0.label == "ucache_sessions_ended_total" }.flatMap(\.dimensions).map(\.1))
        #expect(reasons == ["logout", "session_expired", "session_evicted", "principal_changed", "memory_pressure"])
        for counter in metrics.counters {
            for (_, value) in counter.dimensions {
                #expect(value == value.lowercased(), "\(counter.label) \(value)")
            }
        }
    }

    static func hits(_ value: Int) -> CacheMetricFamily {
        CacheMetricFamily(
            name: "ucache_hits_total", help: "Hits.", kind: .counter,
            samples: [
                .init(
                    name: "ucache_hits_total", labels: [.init("part", "rest"), .init("scope", "session")],
                    value: .int(value))
            ])
    }

    static let latency = CacheMetricFamily(
        name: "ucache_l2_read_latency_seconds", help: "Latency.", kind: .summary,
        samples: [
            .init(name: "ucache_l2_read_latency_seconds_sum", value: .double(0.5)),
            .init(name: "ucache_l2_read_latency_seconds_count", value: .int(3)),
        ])
}

/// Families a test changes between collections.
final class SharedFamilies: Sendable {
    private let storage: Mutex<[CacheMetricFamily]>
    init(_ value: [CacheMetricFamily]) { storage = Mutex(value) }
    var value: [CacheMetricFamily] {
        get { storage.withLock { $0 } }
        set { storage.withLock { $0 = newValue } }
    }
}
