/// Where tracing, metrics and logging integrations hook into the cache's operations that take time.
///
/// The cache calls ``start(_:attributes:)`` when one of the operations of ``CacheOperation`` begins and
/// ``end(_:attributes:)`` when it ends, with attributes of bounded cardinality only (methods, route templates,
/// operation names, outcomes, statuses, reasons: never ids, tokens, keys or bodies). An upstream fetch also runs
/// inside ``withCurrent(_:_:)``, so an implementation can make its span current for the request's own task (a
/// task-local such as swift-distributed-tracing's `ServiceContext`), and the transport's request decorator
/// (`CurlHTTPClient.Configuration.requestDecorator`) sees it while it builds the upstream request.
///
/// Install one with `CacheHub.Configuration.instrumentation` (several with ``CacheInstrumentationGroup``). With none
/// installed, an operation costs one check of an optional.
public protocol CacheInstrumentation: Sendable {
    /// An operation began; the token comes back to ``end(_:attributes:)``.
    func start(_ operation: CacheOperation, attributes: CacheOperationAttributes) -> CacheOperationToken

    /// The operation ended; `attributes` are the start's plus what the end learnt (status, outcome, failure).
    func end(_ token: CacheOperationToken, attributes: CacheOperationAttributes)

    /// Runs `body` (the upstream call of a fetch) with the operation as the current one of the calling task.
    /// Default: runs `body`.
    func withCurrent<Result>(_ token: CacheOperationToken, _ body: () async -> Result) async -> Result
}

extension CacheInstrumentation {
    public func withCurrent<Result>(_ token: CacheOperationToken, _ body: () async -> Result) async -> Result {
        await body()
    }
}

/// The operations a ``CacheInstrumentation`` hears about.
public enum CacheOperation: String, Hashable, Sendable, CaseIterable {
    /// A REST request sent upstream (a miss, a revalidation or an uncached call).
    case restFetch = "rest.fetch"
    /// A GraphQL operation sent upstream.
    case graphQLFetch = "graphql.fetch"
    /// A read of the fleet's shared second level after a miss in memory.
    case secondLevelRead = "l2.read"
    /// A clear published to the other replicas.
    case replicatedClear = "replication.clear"
    /// A session ending (logout, expiry, eviction, another principal, memory pressure).
    case sessionEnding = "session.end"
}

/// What an operation is about, in values of bounded cardinality that are safe to log, label and attach to spans.
///
/// Paths appear as route templates (``CacheRouteTemplate``), GraphQL operations by name; no session id, account,
/// token, cache key or body is ever set here.
public struct CacheOperationAttributes: Hashable, Sendable {
    /// `rest` or `graphql`.
    public var part: String?
    /// The HTTP method of an upstream fetch.
    public var method: String?
    /// The request path with every id-like segment replaced by `{id}`.
    public var route: String?
    /// The GraphQL operation's name.
    public var graphQLOperationName: String?
    /// `query` or `mutation`.
    public var graphQLOperationType: String?
    /// What the cache had: `miss`, `revalidate`, `uncached` for fetches; `hit`, `miss`, `unavailable` for a second-
    /// level read.
    public var outcome: String?
    /// The upstream's HTTP status.
    public var status: Int?
    /// Why a session ended or a clear was published (a ``ClearReason`` or a replicated clear's kind).
    public var reason: String?
    /// The error code of a failed operation.
    public var failure: String?

    public init(
        part: String? = nil, method: String? = nil, route: String? = nil, graphQLOperationName: String? = nil,
        graphQLOperationType: String? = nil, outcome: String? = nil, status: Int? = nil, reason: String? = nil,
        failure: String? = nil
    ) {
        self.part = part
        self.method = method
        self.route = route
        self.graphQLOperationName = graphQLOperationName
        self.graphQLOperationType = graphQLOperationType
        self.outcome = outcome
        self.status = status
        self.reason = reason
        self.failure = failure
    }

    /// Every attribute set, under OpenTelemetry's semantic-convention names where one exists.
    public var namedValues: [(name: String, value: String)] {
        var values: [(name: String, value: String)] = []
        if let part { values.append(("cache.part", part)) }
        if let method { values.append(("http.request.method", method)) }
        if let route { values.append(("url.template", route)) }
        if let graphQLOperationName { values.append(("graphql.operation.name", graphQLOperationName)) }
        if let graphQLOperationType { values.append(("graphql.operation.type", graphQLOperationType)) }
        if let outcome { values.append(("cache.outcome", outcome)) }
        if let status { values.append(("http.response.status_code", String(status))) }
        if let reason { values.append(("cache.reason", reason)) }
        if let failure { values.append(("error.type", failure)) }
        return values
    }
}

/// An operation in progress: what it is, when it started, and whatever the instrumentation keeps for it.
public struct CacheOperationToken: Sendable {
    public let operation: CacheOperation
    public let startedAt: ContinuousClock.Instant
    /// The instrumentation's own state (a span, say).
    public let state: (any Sendable)?

    public init(operation: CacheOperation, startedAt: ContinuousClock.Instant = .now, state: (any Sendable)? = nil) {
        self.operation = operation
        self.startedAt = startedAt
        self.state = state
    }
}
