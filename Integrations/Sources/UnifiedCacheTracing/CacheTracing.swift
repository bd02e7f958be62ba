import Tracing
import UnifiedCache

/// Puts the cache's operations on the app's traces: a span per upstream fetch (REST and GraphQL), second-level
/// read, replicated clear and session ending, as a child of the span current in the caller's task.
///
/// Install it as the hub's instrumentation, and ``CacheTracing/requestDecorator(tracer:)`` as the transport's
/// decorator so the upstream's own spans join the trace:
///
/// ```swift
/// var configuration = CacheHub.Configuration(restBaseURL: rest, graphQLEndpoint: graphQL)
/// configuration.instrumentation = CacheTracing()
/// configuration.transport.requestDecorator = CacheTracing.requestDecorator()
/// ```
///
/// Span attributes are the core's ``CacheOperationAttributes`` (method, route template, GraphQL operation name and
/// type, cache outcome, status, reason): never a session id, account, token, key or body.
public struct CacheTracing: CacheInstrumentation {
    private let tracer: (any Tracer)?

    /// - Parameter tracer: the tracer to use; nil (the default) uses the one the app bootstrapped
    ///   (`InstrumentationSystem.tracer`), read on each operation.
    public init(tracer: (any Tracer)? = nil) {
        self.tracer = tracer
    }

    public func start(_ operation: CacheOperation, attributes: CacheOperationAttributes) -> CacheOperationToken {
        let tracer = tracer ?? InstrumentationSystem.tracer
        let span = tracer.startSpan(
            Self.spanName(operation, attributes), context: ServiceContext.current ?? .topLevel,
            ofKind: Self.kind(of: operation))
        Self.set(attributes, on: span)
        return CacheOperationToken(operation: operation, state: span)
    }

    public func end(_ token: CacheOperationToken, attributes: CacheOperationAttributes) {
        guard let span = token.state as? any Span else { return }
        Self.set(attributes, on: span)
        if attributes.failure != nil || (attributes.status ?? 0) >= 500 {
            span.setStatus(SpanStatus(code: .error))
        }
        span.end()
    }

    /// The upstream call runs with the fetch's span as the task's current context, so the transport's decorator
    /// injects this span (not the caller's) into the upstream request.
    public func withCurrent<Result>(_ token: CacheOperationToken, _ body: () async -> Result) async -> Result {
        guard let span = token.state as? any Span else { return await body() }
        return await ServiceContext.withValue(span.context) { await body() }
    }

    /// Injects the current span's context (with a W3C tracer such as swift-otel's: the `traceparent` and
    /// `tracestate` headers) into every upstream request. Runs in the caller's task, where `ServiceContext.current`
    /// is the request's (or the cache fetch's) span; does nothing outside a trace.
    public static func requestDecorator(tracer: (any Tracer)? = nil) -> CurlHTTPClient.RequestDecorator {
        { request in
            guard let context = ServiceContext.current else { return }
            let tracer = tracer ?? InstrumentationSystem.tracer
            tracer.inject(context, into: &request.headers, using: CurlHeadersInjector())
        }
    }

    /// `GET /api/accounts/{id}` for REST (OpenTelemetry's HTTP client span name), `query Balances` for GraphQL.
    static func spanName(_ operation: CacheOperation, _ attributes: CacheOperationAttributes) -> String {
        switch operation {
        case .restFetch:
            return "\(attributes.method ?? "GET") \(attributes.route ?? "/")"
        case .graphQLFetch:
            return "\(attributes.graphQLOperationType ?? "query") \(attributes.graphQLOperationName ?? "anonymous")"
        case .secondLevelRead, .replicatedClear, .sessionEnding:
            return "cache." + operation.rawValue
        }
    }

    static func kind(of operation: CacheOperation) -> SpanKind {
        switch operation {
        case .restFetch, .graphQLFetch, .secondLevelRead: return .client
        case .replicatedClear: return .producer
        case .sessionEnding: return .internal
        }
    }

    private static func set(_ attributes: CacheOperationAttributes, on span: any Span) {
        span.updateAttributes { spanAttributes in
            for (name, value) in attributes.namedValues {
                spanAttributes[name] = value
            }
            if let status = attributes.status {
                spanAttributes["http.response.status_code"] = status
            }
        }
    }
}

/// Writes a trace context into a request's headers, replacing any value already there.
struct CurlHeadersInjector: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout CurlHTTPClient.Headers) {
        headers.replaceOrAdd(name: key, value: value)
    }
}
