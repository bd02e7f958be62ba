import CoreMetrics
import Synchronization
import UnifiedCache

/// Every counter and gauge of `CacheHub.metricFamilies()` as a swift-metrics `Counter` or `Gauge`, so the cache's
/// hits, misses, stale hits, fetches, evictions, sessions by ending, memory, second level and replication appear in
/// the app's own backend (Prometheus, OpenTelemetry) under the names and labels of the hub's exposition.
///
/// The hub keeps its statistics in counters of its own, at no cost per request; ``collect()`` reads them as values
/// (no text is rendered or parsed) and moves each swift-metrics counter by what its series grew since the last
/// collection (a gauge takes the current value). The hub's lifecycle service (`CacheHubService` in
/// UnifiedCacheServiceLifecycle) collects every few seconds; a `/metrics` route may collect before it renders.
/// Summaries (`ucache_l2_read_latency_seconds`) are not mirrored: ``CacheOperationMetrics`` records each
/// second-level read as `db.client.operation.duration`, so a backend sees one name per measurement. Labels are
/// the exposition's: `part`, `scope` (`session`/`shared`, never a session's id), `reason` (snake_case), …
public final class CacheHubMetrics: Sendable {
    private let source: @Sendable () -> [CacheMetricFamily]
    private let factory: any MetricsFactory
    private let state = Mutex<State>(State())

    fileprivate struct State {
        var counters: [SeriesID: (counter: Counter, last: Int64)] = [:]
        var gauges: [SeriesID: Gauge] = [:]
    }

    fileprivate struct SeriesID: Hashable {
        var name: String
        var labels: [CacheMetricFamily.Label]
    }

    /// Mirrors `hub`'s metrics.
    public convenience init(hub: CacheHub, factory: any MetricsFactory = MetricsSystem.factory) {
        self.init(factory: factory) { [weak hub] in hub?.metricFamilies() ?? [] }
    }

    /// Mirrors the families `source` returns (tests, or a hub held elsewhere).
    public init(
        factory: any MetricsFactory = MetricsSystem.factory, source: @escaping @Sendable () -> [CacheMetricFamily]
    ) {
        self.factory = factory
        self.source = source
    }

    /// Reads the hub's metrics and brings every mirrored counter and gauge up to date.
    public func collect() {
        let families = source()
        state.withLock { state in
            for family in families {
                for sample in family.samples {
                    let id = SeriesID(name: sample.name, labels: sample.labels)
                    switch family.kind {
                    case .counter: Self.count(sample, id, factory, &state)
                    case .gauge:
                        let gauge =
                            state.gauges[id] ?? Gauge(label: id.name, dimensions: id.dimensions, factory: factory)
                        state.gauges[id] = gauge
                        gauge.record(sample.value.doubleValue)
                    case .summary: continue
                    }
                }
            }
        }
    }

    private static func count(
        _ sample: CacheMetricFamily.Sample, _ id: SeriesID, _ factory: any MetricsFactory, _ state: inout State
    ) {
        let value = Int64(sample.value.doubleValue)
        if var entry = state.counters[id] {
            // A counter that went down was reset (a hub made anew): its whole value is new.
            let delta = value >= entry.last ? value - entry.last : value
            if delta > 0 { entry.counter.increment(by: delta) }
            entry.last = value
            state.counters[id] = entry
        } else {
            let counter = Counter(label: id.name, dimensions: id.dimensions, factory: factory)
            if value > 0 { counter.increment(by: value) }
            state.counters[id] = (counter, value)
        }
    }
}

extension CacheHubMetrics.SeriesID {
    var dimensions: [(String, String)] { labels.map { ($0.name, $0.value) } }
}
