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

    /// A read was answered from memory or the second level, with no operation of its own (a hit is no span).
    /// Called in the caller's task on the hit path, so an implementation does what a span event or an attribute
    /// of the caller's current span costs and no more. Default: nothing.
    func cacheDidServe(_ hit: CacheHit)
}

extension CacheInstrumentation {
    public func withCurrent<Result>(_ token: CacheOperationToken, _ body: () async -> Result) async -> Result {
        await body()
    }

    public func cacheDidServe(_ hit: CacheHit) {}
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
/// token, cache key or body is ever set here. ``namedValues`` gives them under OpenTelemetry's semantic-convention
/// names (`http.*`, `server.*`, `url.template`, `db.*`, `error.type`) and the library's own under `ucache.*`.
public struct CacheOperationAttributes: Hashable, Sendable {
    /// `rest` or `graphql`.
    public var part: String?
    /// The HTTP method of an upstream fetch.
    public var method: String?
    /// The request path with every id-like segment replaced by `{id}` (for GraphQL, the endpoint's path).
    public var route: String?
    /// The GraphQL operation's name.
    public var graphQLOperationName: String?
    /// `query` or `mutation`.
    public var graphQLOperationType: String?
    /// What the cache had, a ``CacheOutcome``'s raw value: `miss`, `stale` (a revalidation) or `bypass` (not
    /// cached) for fetches; `hit` or `miss` for a second-level read.
    public var outcome: String?
    /// Where the answer came from, a ``CacheTier``'s raw value: `upstream` for fetches, `l2` for second-level reads.
    public var tier: String?
    /// The upstream's HTTP status.
    public var status: Int?
    /// Why a session ended or a clear was published (a ``ClearReason`` or a replicated clear's kind), snake_case.
    public var reason: String?
    /// The error code of a failed operation (for a second-level read that had no answer: `timeout`, `error`,
    /// `stopped`).
    public var failure: String?
    /// The host the operation talked to: the upstream's (from the request's URL) or the store's.
    public var serverAddress: String?
    /// The port the operation talked to.
    public var serverPort: Int?
    /// The store's kind, as OpenTelemetry's `db.system.name` spells it (`redis`).
    public var databaseSystem: String?
    /// The command the store ran (`BATCH` for a read from one Redis server, `EVALSHA` from a cluster, `PUBLISH` for
    /// the bus).
    public var databaseOperation: String?

    public init(
        part: String? = nil, method: String? = nil, route: String? = nil, graphQLOperationName: String? = nil,
        graphQLOperationType: String? = nil, outcome: String? = nil, tier: String? = nil, status: Int? = nil,
        reason: String? = nil, failure: String? = nil, serverAddress: String? = nil, serverPort: Int? = nil,
        databaseSystem: String? = nil, databaseOperation: String? = nil
    ) {
        self.part = part
        self.method = method
        self.route = route
        self.graphQLOperationName = graphQLOperationName
        self.graphQLOperationType = graphQLOperationType
        self.outcome = outcome
        self.tier = tier
        self.status = status
        self.reason = reason
        self.failure = failure
        self.serverAddress = serverAddress
        self.serverPort = serverPort
        self.databaseSystem = databaseSystem
        self.databaseOperation = databaseOperation
    }

    /// The server's address and port, from a ``CacheServerAddress`` (the request's URL or the store's).
    public mutating func setServer(_ server: CacheServerAddress?) {
        serverAddress = server?.host
        serverPort = server?.port
    }

    /// A store's ``CacheBackendDescription``: its system, command and server.
    public mutating func setBackend(_ backend: CacheBackendDescription) {
        databaseSystem = backend.system
        databaseOperation = backend.operationName
        serverAddress = backend.serverAddress
        serverPort = backend.serverPort
    }

    /// What `error.type` says: the failure's code, else an HTTP status of 400 or more as its number (OpenTelemetry's
    /// rule for HTTP clients); nil when the operation succeeded.
    public var errorType: String? {
        if let failure { return failure }
        if let status, status >= 400 { return String(status) }
        return nil
    }

    /// Every attribute set, under OpenTelemetry's semantic-convention names where one exists and `ucache.*`
    /// otherwise; integers (status, port) stay integers.
    public var namedValues: [(name: String, value: CacheAttributeValue)] {
        typealias Name = CacheAttributeName
        var values: [(name: String, value: CacheAttributeValue)] = []
        if let part { values.append((Name.part, .string(part))) }
        if let method { values.append((Name.httpRequestMethod, .string(method))) }
        if let route { values.append((Name.urlTemplate, .string(route))) }
        if let graphQLOperationName { values.append((Name.graphQLOperationName, .string(graphQLOperationName))) }
        if let graphQLOperationType { values.append((Name.graphQLOperationType, .string(graphQLOperationType))) }
        if let databaseSystem { values.append((Name.databaseSystem, .string(databaseSystem))) }
        if let databaseOperation { values.append((Name.databaseOperation, .string(databaseOperation))) }
        if let serverAddress { values.append((Name.serverAddress, .string(serverAddress))) }
        if let serverPort { values.append((Name.serverPort, .int(serverPort))) }
        if let outcome { values.append((Name.outcome, .string(outcome))) }
        if let tier { values.append((Name.tier, .string(tier))) }
        if let status { values.append((Name.httpResponseStatusCode, .int(status))) }
        if let reason { values.append((Name.reason, .string(reason))) }
        if let errorType { values.append((Name.errorType, .string(errorType))) }
        return values
    }
}

/// An attribute's value: OpenTelemetry keeps integers (a status code, a port) as integers.
public enum CacheAttributeValue: Hashable, Sendable, CustomStringConvertible {
    case string(String)
    case int(Int)

    public var description: String {
        switch self {
        case .string(let value): return value
        case .int(let value): return String(value)
        }
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
