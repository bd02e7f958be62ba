import GraphQLLanguage
import Synchronization

/// Strategy 1 of the seeds: after a mutation, refetch every query it affects from the network, in parallel.
///
/// A registry from mutation type (the app's own enum, as in the seed) to the queries to refetch, built from
/// the mutation's context (`["accountId": "101"]`). Simple and explicit; the price is keeping the map in step
/// with the queries.
///
/// ```swift
/// let manager = MutationRefetchManager<MutationType>(client: client, registry: registry)
/// manager.register(.makePayment, refetching: ["GetAccountBalance", "GetRecentTransactions", "GetDashboard"])
/// let report = await manager.refetchAfterMutation(.makePayment, context: ["accountId": "101"])
/// ```
public final class MutationRefetchManager<MutationType: Hashable & Sendable>: Sendable {
    /// The session's client the refetches run on.
    public let client: GraphQLClient
    /// Query names → operations.
    public let registry: GraphQLQueryRegistry
    private let policies = Mutex<[MutationType: @Sendable (GraphQLJSONObject) -> [QueryDescriptor]]>([:])

    /// Creates a manager with an empty mutation map.
    public init(client: GraphQLClient, registry: GraphQLQueryRegistry) {
        self.client = client
        self.registry = registry
    }

    /// Maps a mutation type to the queries it affects, built from the mutation's context.
    public func register(
        _ mutationType: MutationType,
        refetching queries: @escaping @Sendable (_ context: GraphQLJSONObject) -> [QueryDescriptor]
    ) {
        policies.withLock { $0[mutationType] = queries }
    }

    /// Maps a mutation type to registered query names; each gets the context's members its operation declares
    /// as variables.
    public func register(_ mutationType: MutationType, refetching queryTypes: [String]) {
        register(mutationType) { context in
            queryTypes.map { QueryDescriptor(queryType: $0, variables: context, priority: .critical) }
        }
    }

    /// The queries a mutation type affects for a context; empty when the type is not registered.
    public func queriesToRefetch(after mutationType: MutationType, context: GraphQLJSONObject) -> [QueryDescriptor] {
        policies.withLock { $0[mutationType] }?(context) ?? []
    }

    /// Refetches every affected query with `fetchIgnoringCacheData`, in parallel, and waits for all of them.
    /// - Returns: one outcome per query, in the registered order; failures are reported, not thrown.
    @discardableResult
    public func refetchAfterMutation(_ mutationType: MutationType, context: GraphQLJSONObject) async -> RefetchReport {
        let descriptors = queriesToRefetch(after: mutationType, context: context)
        return await client.refetchInParallel(descriptors, registry: registry)
    }
}
