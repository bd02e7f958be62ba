import CoreMetrics
import Synchronization
import UnifiedCache

/// Every counter and gauge of `CacheHub.metricsText()` as a swift-metrics `Counter` or `Gauge`, so the cache's hits,
/// misses, stale hits, fetches, evictions, sessions by ending, memory, second level and replication appear in the
/// app's own backend (Prometheus, OpenTelemetry) under the names and labels the hub's exposition uses.
///
/// The hub keeps its statistics in counters of its own, at no cost per request; ``collect()`` reads them and moves
/// each swift-metrics counter by what its series grew since the last collection (a gauge takes the current value).
/// The hub's lifecycle service (`CacheHubService` in UnifiedCacheServiceLifecycle) collects every few seconds; a
/// `/metrics` route may collect before it renders. Summaries (`…_latency_seconds`) are left to
/// ``CacheOperationMetrics``' timers. Labels are the exposition's: `part`, `scope` (`session`/`shared`, never a
/// session's id), `reason`, …
public final class CacheHubMetrics: Sendable {
    private let source: @Sendable () -> String
    private let factory: any MetricsFactory
    private let state = Mutex<State>(State())

    private struct State {
        var counters: [SeriesID: (counter: Counter, last: Int64)] = [:]
        var gauges: [SeriesID: Gauge] = [:]
    }

    struct SeriesID: Hashable {
        var name: String
        var labels: [String]
    }

    /// Mirrors `hub`'s metrics.
    public convenience init(hub: CacheHub, factory: any MetricsFactory = MetricsSystem.factory) {
        self.init(factory: factory) { [weak hub] in hub?.metricsText() ?? "" }
    }

    /// Mirrors the exposition `source` returns (tests, or a hub held elsewhere).
    public init(factory: any MetricsFactory = MetricsSystem.factory, source: @escaping @Sendable () -> String) {
        self.factory = factory
        self.source = source
    }

    /// Reads the hub's metrics and brings every mirrored counter and gauge up to date.
    public func collect() {
        let samples = PrometheusTextSamples.parse(source())
        state.withLock { state in
            for sample in samples {
                let id = SeriesID(name: sample.name, labels: sample.labels.flatMap { [$0.0, $0.1] })
                switch sample.kind {
                case .counter:
                    let value = Int64(sample.value)
                    if var entry = state.counters[id] {
                        // A counter that went down was reset (a hub made anew): its whole value is new.
                        let delta = value >= entry.last ? value - entry.last : value
                        if delta > 0 { entry.counter.increment(by: delta) }
                        entry.last = value
                        state.counters[id] = entry
                    } else {
                        let counter = Counter(label: sample.name, dimensions: sample.labels, factory: factory)
                        if value > 0 { counter.increment(by: value) }
                        state.counters[id] = (counter, value)
                    }
                case .gauge:
                    let gauge =
                        state.gauges[id] ?? Gauge(label: sample.name, dimensions: sample.labels, factory: factory)
                    state.gauges[id] = gauge
                    gauge.record(sample.value)
                }
            }
        }
    }
}
