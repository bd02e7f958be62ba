/// One call's operation, ready for the cache and the network: the prepared document, the variables, the
/// query key and the timeout the call asked for.
import GraphQLLanguage

struct PreparedRequest: Sendable {
    let document: PreparedDocument
    /// The variables as given: what is sent.
    let variables: GraphQLJSONObject
    /// The variables with the operation's defaults filled in, canonical: the second half of the query key.
    let queryKey: GraphQLQueryKey
    /// The explicit `cacheTimeout:`, else the query type's `CacheableQuery.cacheTimeout`, else `.useDefault`.
    let requestedTimeout: QueryCacheTimeout

    /// Checks the kind and the variables.
    /// - Throws: `invalidOperation`.
    init(
        _ document: PreparedDocument,
        variables: GraphQLJSONObject,
        kind: GraphQLOperationDefinition.Kind,
        requestedTimeout: QueryCacheTimeout = .useDefault
    ) throws(GraphQLCacheError) {
        guard document.kind == kind else {
            let verb = kind == .query ? "fetch" : "perform"
            throw GraphQLCacheError.invalidOperation(
                "Operation \"\(document.keyName)\" is a \(document.kind.rawValue); \(verb) takes a \(kind.rawValue)."
            )
        }
        let definition = document.operation.operation
        try definition.validateVariables(variables)
        self.document = document
        self.variables = variables
        self.queryKey = document.queryKey(
            for: definition.variableDefinitions.isEmpty ? variables : definition.resolvedVariables(variables))
        self.requestedTimeout = requestedTimeout
    }
}

extension GraphQLClient {
    /// A typed query's request; the explicit timeout wins over the query type's.
    func prepareQuery<Query: GraphQLQuery>(
        _ query: Query,
        explicitTimeout: QueryCacheTimeout?
    ) throws(GraphQLCacheError) -> PreparedRequest {
        let document = try documents.prepared(Query.self, addingTypenames: configuration.addsTypenameToSelections)
        var requested = explicitTimeout ?? .useDefault
        if case .useDefault = requested, document.isCacheableType,
            let cacheable = Query.self as? any CacheableQuery.Type
        {
            requested = cacheable.cacheTimeout
        }
        return try PreparedRequest(document, variables: query.variables, kind: .query, requestedTimeout: requested)
    }

    /// An untyped operation's request.
    func prepareUntyped(
        _ operation: UntypedGraphQLOperation,
        kind: GraphQLOperationDefinition.Kind,
        explicitTimeout: QueryCacheTimeout?
    ) throws(GraphQLCacheError) -> PreparedRequest {
        let document = try documents.prepared(
            operation.document,
            operationName: operation.operationName,
            addingTypenames: configuration.addsTypenameToSelections
        )
        return try PreparedRequest(
            document,
            variables: operation.variables,
            kind: kind,
            requestedTimeout: explicitTimeout ?? .useDefault
        )
    }
}
