import Foundation
import Hummingbird
import InMemoryTracing
import Logging
import Metrics
import OTel
import Prometheus
import ServiceLifecycle
import Tracing
import UnifiedCache
import UnifiedCacheLogging
import UnifiedCacheMetrics
import UnifiedCacheServiceLifecycle
import UnifiedCacheTracing

/// The cache in the app's logs, metrics and traces, through UnifiedCache's Integrations package: the app's `Logger`
/// gets the cache's events, swift-metrics (a Prometheus registry, served at `/metrics`) its counters and timers, and
/// the app's tracer its spans, with the trace context sent on to the upstream.
///
/// `BFF_TRACING` picks the tracer:
/// - `otel` (the default): swift-otel's, so every upstream request carries a W3C `traceparent` of the request's
///   trace. Its spans go nowhere unless `OTEL_TRACES_EXPORTER=otlp` (with `OTEL_EXPORTER_OTLP_ENDPOINT`, and
///   `OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf`: the package is built with the OTLP/HTTP exporter only) sends them
///   to a collector.
/// - `memory`: finished spans kept in memory and served at `/debug/spans` (the smoke test reads them).
/// - `off`: no tracer (the benchmark's setting).
struct Observability: Sendable {
    let logger: Logger
    let prometheus = PrometheusMetricsFactory()
    let spans: InMemoryTracer?
    /// swift-otel's span processing, run in the app's `ServiceGroup`.
    let tracingService: (any Service)?
    /// Upstream calls in flight, which the hub's service lets finish on a graceful shutdown.
    let requestsInFlight = CacheRequestsInFlight()

    /// Bootstraps swift-metrics and the tracer. Call once, first.
    init(environment: [String: String]) throws {
        var logger = Logger(label: "HummingbirdBFF")
        logger.logLevel = environment["LOG_LEVEL"].flatMap(Logger.Level.init(rawValue:)) ?? .info
        self.logger = logger
        MetricsSystem.bootstrap(prometheus)
        switch environment["BFF_TRACING"] ?? "otel" {
        case "otel":
            var otel = OTel.Configuration.default
            otel.serviceName = "HummingbirdBFF"
            otel.traces.exporter = .none
            otel.metrics.enabled = false
            otel.logs.enabled = false
            let backend = try OTel.makeTracingBackend(configuration: otel)
            InstrumentationSystem.bootstrap(backend.factory)
            (spans, tracingService) = (nil, backend.service)
        case "memory":
            let tracer = InMemoryTracer()
            InstrumentationSystem.bootstrap(tracer)
            (spans, tracingService) = (tracer, nil)
        case "off":
            (spans, tracingService) = (nil, nil)
        case let other:
            throw BFFConfiguration.Invalid(description: "BFF_TRACING must be otel, memory or off, not \(other)")
        }
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

    /// The services to run beside the server: the tracer's, and the hub (mirroring its metrics at every check).
    func services(for hub: CacheHub, metrics: CacheHubMetrics) -> [any Service] {
        let hubService = CacheHubService(
            hub: hub, requestsInFlight: requestsInFlight,
            configuration: .init(checkInterval: .seconds(2), metricsCollection: metrics.collect), logger: logger)
        return [tracingService, hubService].compactMap { $0 }
    }

    /// `GET /metrics`: the Prometheus registry, the hub's series brought up to date first.
    func metricsResponse(_ metrics: CacheHubMetrics) -> Response {
        metrics.collect()
        return Response(
            status: .ok, headers: [.contentType: "text/plain; version=0.0.4; charset=utf-8"],
            body: ResponseBody(byteBuffer: ByteBuffer(bytes: prometheus.registry.emitToBuffer())))
    }

    /// `GET /debug/spans` (with `BFF_TRACING=memory`): the finished spans.
    func finishedSpans() -> [FinishedSpan] {
        (spans?.finishedSpans ?? []).map { span in
            FinishedSpan(
                name: span.operationName, trace: span.traceID, span: span.spanID, parent: span.parentSpanID ?? "")
        }
    }

    struct FinishedSpan: ResponseEncodable {
        var name: String
        var trace: String
        var span: String
        var parent: String
    }
}
