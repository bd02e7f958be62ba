import Tracing
import UnifiedCache

/// Puts the cache's operations on the app's traces: a span per upstream fetch (REST and GraphQL), second-level
/// read, replicated clear and session ending, as a child of the span current in the caller's task, named and
/// attributed as OpenTelemetry's semantic conventions say.
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
/// | operation | span name | kind | attributes |
/// |---|---|---|---|
/// | REST fetch | `{method} {url.template}` (`GET /api/accounts/{id}/balance`) | client | `http.request.method`, `url.template`, `server.address`, `server.port`, `http.response.status_code` (an integer), `error.type`, `ucache.outcome` (`miss`, `stale`, `bypass`), `ucache.tier` (`upstream`) |
/// | GraphQL fetch | `{graphql.operation.type} {graphql.operation.name}` (`query Balances`) | client | the same, with `graphql.operation.name` and `graphql.operation.type`; `url.template` is the endpoint's path |
/// | second-level read | `{db.operation.name}` (`BATCH` on one server, `EVALSHA` on a cluster) | client | `db.system.name` (`redis`), `db.operation.name`, `server.address`, `server.port`, `ucache.outcome` (`hit`, `miss`), `ucache.tier` (`l2`), `error.type` |
/// | replicated clear | `{db.operation.name}` (`PUBLISH`) | producer | the bus's `db.*` and `server.*`, `ucache.reason` (the clear's kind) |
/// | session ending | `ucache.session.end` | internal | `ucache.reason` |
///
/// A fetch's span has an error status when the call failed or the upstream answered 400 or more (OpenTelemetry's
/// rule for client spans). A hit makes no span: it adds a `ucache.lookup` event (`ucache.outcome` `hit` or `stale`,
/// `ucache.tier` `l1` or `l2`, `ucache.part`) to the caller's current span when the tracer can find it
/// (`Tracer.activeSpan(identifiedBy:)`), and costs one task-local read outside a trace. Never a session id,
/// account, token, key or body.
public struct CacheTracing: CacheInstrumentation {
    /// The name of the event a hit adds to the caller's span.
    public static let lookupEventName = "ucache.lookup"

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
        return CacheOperationToken(operation: operation, state: span)
    }

    public func end(_ token: CacheOperationToken, attributes: CacheOperationAttributes) {
        guard let span = token.state as? any Span else { return }
        Self.set(attributes, on: span)
        if attributes.errorType != nil {
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

    /// A hit: an event on the caller's current span, if there is one the tracer knows. Its attributes are made
    /// once per kind of hit, so a hit costs the lookup of the span and the event's append.
    public func cacheDidServe(_ hit: CacheHit) {
        guard let context = ServiceContext.current else { return }
        let tracer = tracer ?? InstrumentationSystem.tracer
        guard let span = tracer.activeSpan(identifiedBy: context), span.isRecording else { return }
        span.addEvent(SpanEvent(name: Self.lookupEventName, attributes: LookupAttributes.of(hit)))
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

    /// `GET /api/accounts/{id}` for REST (OpenTelemetry's HTTP client span name), `query Balances` for GraphQL
    /// (OpenTelemetry's GraphQL span name), the command for the second level and the bus.
    static func spanName(_ operation: CacheOperation, _ attributes: CacheOperationAttributes) -> String {
        switch operation {
        case .restFetch:
            return "\(attributes.method ?? "GET") \(attributes.route ?? "/")"
        case .graphQLFetch:
            return "\(attributes.graphQLOperationType ?? "query") \(attributes.graphQLOperationName ?? "anonymous")"
        case .secondLevelRead, .replicatedClear:
            return attributes.databaseOperation ?? attributes.databaseSystem ?? "ucache." + operation.rawValue
        case .sessionEnding:
            return "ucache." + operation.rawValue
        }
    }

    static func kind(of operation: CacheOperation) -> SpanKind {
        switch operation {
        case .restFetch, .graphQLFetch, .secondLevelRead: return .client
        case .replicatedClear: return .producer
        case .sessionEnding: return .internal
        }
    }

    /// Every attribute once, integers (status, port) as integers.
    private static func set(_ attributes: CacheOperationAttributes, on span: any Span) {
        span.updateAttributes { spanAttributes in
            for (name, value) in attributes.namedValues {
                switch value {
                case .string(let string): spanAttributes[name] = string
                case .int(let int): spanAttributes[name] = int
                }
            }
        }
    }
}

/// The attributes of a `ucache.lookup` event, one set per kind of hit, made once.
enum LookupAttributes {
    private static let table: [SpanAttributes] = {
        var table: [SpanAttributes] = []
        for part in CacheHit.Part.allCases {
            for tier in CacheTier.allCases {
                for outcome in CacheOutcome.allCases {
                    var attributes = SpanAttributes()
                    attributes[CacheAttributeName.outcome] = outcome.rawValue
                    attributes[CacheAttributeName.tier] = tier.rawValue
                    attributes[CacheAttributeName.part] = part.rawValue
                    table.append(attributes)
                }
            }
        }
        return table
    }()

    static func of(_ hit: CacheHit) -> SpanAttributes {
        let tiers = CacheTier.allCases.count
        let outcomes = CacheOutcome.allCases.count
        return table[(ordinal(hit.part) * tiers + ordinal(hit.tier)) * outcomes + ordinal(hit.outcome)]
    }

    private static func ordinal(_ part: CacheHit.Part) -> Int {
        switch part {
        case .rest: return 0
        case .graphql: return 1
        }
    }

    private static func ordinal(_ tier: CacheTier) -> Int {
        switch tier {
        case .l1: return 0
        case .l2: return 1
        case .upstream: return 2
        }
    }

    private static func ordinal(_ outcome: CacheOutcome) -> Int {
        switch outcome {
        case .hit: return 0
        case .stale: return 1
        case .miss: return 2
        case .bypass: return 3
        }
    }
}

/// Writes a trace context into a request's headers, replacing any value already there.
struct CurlHeadersInjector: Injector {
    func inject(_ value: String, forKey key: String, into headers: inout CurlHTTPClient.Headers) {
        headers.replaceOrAdd(name: key, value: value)
    }
}
