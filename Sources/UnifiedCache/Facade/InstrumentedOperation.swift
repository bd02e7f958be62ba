import CacheCore

/// A hub-level operation reported to the hub's `CacheInstrumentation` (session endings, replicated clears): made
/// with `InstrumentedOperation(instrumentation, …)`, nil when none is installed, ended once by the caller.
struct InstrumentedOperation {
    let instrumentation: any CacheInstrumentation
    let token: CacheOperationToken
    let attributes: CacheOperationAttributes

    private init?(
        _ instrumentation: (any CacheInstrumentation)?, _ operation: CacheOperation,
        attributes: @autoclosure () -> CacheOperationAttributes
    ) {
        guard let instrumentation else { return nil }
        self.instrumentation = instrumentation
        self.attributes = attributes()
        self.token = instrumentation.start(operation, attributes: self.attributes)
    }

    /// A session ending, with its reason (never the session's id or principal).
    init?(_ instrumentation: (any CacheInstrumentation)?, sessionEnding ending: SessionRegistry.Ending) {
        self.init(instrumentation, .sessionEnding, attributes: .init(reason: Self.name(of: ending.reason)))
    }

    /// A clear published to the other replicas, with its kind (never the account, query, path or records) and
    /// what the bus says of itself (`db.system.name`, `db.operation.name`, `server.address`).
    init?(
        _ instrumentation: (any CacheInstrumentation)?, replicating clear: ReplicatedClear,
        over transport: any ReplicationTransport
    ) {
        self.init(
            instrumentation, .replicatedClear,
            attributes: {
                var attributes = CacheOperationAttributes(reason: Self.kind(of: clear))
                attributes.setBackend(transport.backend)
                return attributes
            }())
    }

    func end() {
        instrumentation.end(token, attributes: attributes)
    }

    /// A reason's name in snake_case; a caller's own reasons are all `custom`, so the name's values stay few.
    static func name(of reason: ClearReason) -> String {
        if case .custom = reason { return "custom" }
        return CacheLabelCase.snake(reason.description)
    }

    static func kind(of clear: ReplicatedClear) -> String {
        switch clear {
        case .everything: return "everything"
        case .rest: return "rest"
        case .graphQL: return "graphql"
        case .timestamps: return "timestamps"
        case .uplifted: return "uplifted"
        case .query: return "query"
        case .account: return "account"
        case .domain: return "domain"
        case .restMutation: return "rest_mutation"
        case .graphQLMutation: return "graphql_mutation"
        case .domainsInEverySession: return "domains_in_every_session"
        case .dropLocalCaches: return "drop_local_caches"
        case .values: return "values"
        case .valueTagsInEveryScope: return "value_tags_in_every_scope"
        }
    }
}
