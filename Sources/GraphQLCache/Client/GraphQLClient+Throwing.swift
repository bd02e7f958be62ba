import CacheCore
import GraphQLLanguage

/// The `async throws` forms of the client's calls, for server handlers: the same cache, policies and
/// de-duplication as the `Result` forms (which stay, for the seeds' port), with the failure thrown as the module's
/// ``GraphQLCacheError`` (its ``GraphQLCacheError/code`` is stable; an HTTP error's status and `errors` are
/// ``GraphQLCacheError/httpStatus`` and ``GraphQLCacheError/graphQLErrors``).
///
/// `data(for:)` returns the answer's `data`; `result(for:)` the whole ``GraphQLResult`` (source, staleness, age,
/// partial errors). Each is a thin wrapper: nothing more happens on a cache hit than in the `Result` form.
///
/// ```swift
/// let profile = try await session.graphQL.data(for: ProfileQuery())
/// ```
extension GraphQLClient {
    // MARK: Typed queries

    /// The `data` of a query's answer, under a cache policy (default `.returnCacheDataElseFetch`): the throwing form
    /// of ``fetch(query:cachePolicy:cacheTimeout:resilience:)``.
    @inlinable
    public func data<Query: GraphQLQuery>(
        for query: Query,
        cachePolicy: GraphQLCachePolicy? = nil,
        cacheTimeout: QueryCacheTimeout? = nil,
        resilience: CacheResilience? = nil
    ) async throws(GraphQLCacheError) -> Query.Data {
        try await fetch(query: query, cachePolicy: cachePolicy, cacheTimeout: cacheTimeout, resilience: resilience)
            .get().data
    }

    /// A query's whole answer (data, source, staleness, age, partial errors): the throwing form of
    /// ``fetch(query:cachePolicy:cacheTimeout:resilience:)``.
    @inlinable
    public func result<Query: GraphQLQuery>(
        for query: Query,
        cachePolicy: GraphQLCachePolicy? = nil,
        cacheTimeout: QueryCacheTimeout? = nil,
        resilience: CacheResilience? = nil
    ) async throws(GraphQLCacheError) -> GraphQLResult<Query.Data> {
        try await fetch(query: query, cachePolicy: cachePolicy, cacheTimeout: cacheTimeout, resilience: resilience)
            .get()
    }

    // MARK: Untyped queries

    /// The `data` object of an operation known only at run time: the throwing form of
    /// ``fetch(operation:cachePolicy:cacheTimeout:resilience:)``.
    @inlinable
    public func data(
        for operation: UntypedGraphQLOperation,
        cachePolicy: GraphQLCachePolicy? = nil,
        cacheTimeout: QueryCacheTimeout? = nil,
        resilience: CacheResilience? = nil
    ) async throws(GraphQLCacheError) -> GraphQLJSONObject {
        try await fetch(
            operation: operation, cachePolicy: cachePolicy, cacheTimeout: cacheTimeout, resilience: resilience
        ).get().data
    }

    /// The whole answer of an operation known only at run time: the throwing form of
    /// ``fetch(operation:cachePolicy:cacheTimeout:resilience:)``.
    @inlinable
    public func result(
        for operation: UntypedGraphQLOperation,
        cachePolicy: GraphQLCachePolicy? = nil,
        cacheTimeout: QueryCacheTimeout? = nil,
        resilience: CacheResilience? = nil
    ) async throws(GraphQLCacheError) -> GraphQLResult<GraphQLJSONObject> {
        try await fetch(
            operation: operation, cachePolicy: cachePolicy, cacheTimeout: cacheTimeout, resilience: resilience
        ).get()
    }

    // MARK: Mutations

    /// The `data` of a mutation's answer: the throwing form of ``perform(mutation:)``.
    @inlinable
    public func data<Mutation: GraphQLMutation>(
        performing mutation: Mutation
    ) async throws(GraphQLCacheError) -> Mutation.Data {
        try await perform(mutation: mutation).get().data
    }

    /// The `data` object of a mutation known only at run time: the throwing form of ``perform(operation:)``.
    @inlinable
    public func data(performing operation: UntypedGraphQLOperation) async throws(GraphQLCacheError)
        -> GraphQLJSONObject
    {
        try await perform(operation: operation).get().data
    }
}
