import Foundation
import Hummingbird
import InMemoryTracing
import Logging
import Metrics
import Prometheus
import Tracing
import UnifiedCache
import UnifiedCacheLogging
import UnifiedCacheMetrics
import UnifiedCacheServiceLifecycle
import UnifiedCacheTracing

/// The cache in the app's logs, metrics and traces, through UnifiedCache's Integrations package: the app's `Logger`
/// gets the cache's events, swift-metrics (bootstrapped with a Prometheus registry, served at `/metrics`) its counters,
/// gauges and timers, and the app's tracer its spans, with the trace context sent on to the upstream.
///
/// `BFF_TRACING=memory` keeps finished spans in memory and serves them at `/debug/spans` (the smoke test reads
/// them); a production BFF bootstraps a real tracer here instead (swift-otel's, whose context is W3C `traceparent`).
struct Observability: Sendable {
    let logger: Logger
    let prometheus: PrometheusMetricsFactory
    let spans: InMemoryTracer?
    /// Upstream calls in flight, which the hub's service lets finish on a graceful shutdown.
    let requestsInFlight = CacheRequestsInFlight()

    /// Bootstraps swift-metrics and, with `BFF_TRACING=memory`, the tracer. Call once, first.
    init(environment: [String: String]) {
        var logger = Logger(label: "HummingbirdBFF")
        logger.logLevel = environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        self.logger = logger
        prometheus = PrometheusMetricsFactory()
        MetricsSystem.bootstrap(prometheus)
        spans = environment["BFF_TRACING"] == "memory" ? InMemoryTracer() : nil
        if let spans { InstrumentationSystem.bootstrap(spans) }
    }

    /// The hub's configuration with the integrations installed: spans, timers and the in-flight count for every
    /// upstream call, the trace context on every upstream request, replication events in the log.
    func instrumenting(_ configuration: CacheHub.Configuration) -> CacheHub.Configuration {
        var configuration = configuration
        configuration.instrumentation = CacheInstrumentationGroup([
            CacheTracing(), CacheOperationMetrics(), requestsInFlight,
        ])
        configuration.transport.requestDecorator = CacheTracing.requestDecorator()
        configuration.replication?.observer = ReplicationEventLogger(logger: logger).observe
        return configuration
    }

    /// The cache's events, to the app's logger.
    var cacheEventObserver: CacheEventLogger { CacheEventLogger(logger: logger) }

    /// The hub as a service of the app's `ServiceGroup`, mirroring its metrics at every check.
    func service(for hub: CacheHub, metrics: CacheHubMetrics) -> CacheHubService {
        CacheHubService(
            hub: hub, requestsInFlight: requestsInFlight,
            configuration: .init(checkInterval: .seconds(2), metricsCollection: metrics.collect), logger: logger)
    }

    /// `GET /metrics`: the Prometheus registry, the hub's series brought up to date first.
    func metricsResponse(_ metrics: CacheHubMetrics) -> Response {
        metrics.collect()
        return Response(
            status: .ok,
            headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: prometheus.registry.emitToBuffer()))
        )
    }

    /// `GET /debug/spans` (with `BFF_TRACING=memory`): the finished spans, one JSON object each.
    func spansResponse() throws -> Response {
        let finished = (spans?.finishedSpans ?? []).map { span in
            ["name": span.operationName, "trace": span.traceID, "span": span.spanID, "parent": span.parentSpanID ?? ""]
        }
        let body = try JSONSerialization.data(withJSONObject: finished, options: [.sortedKeys])
        return Response(
            status: .ok, headers: [.contentType: "application/json"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
    }
}
