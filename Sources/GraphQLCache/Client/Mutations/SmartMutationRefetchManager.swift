/// Strategy 2 of the seeds: a mutation declares what it affects (``MutationResultProvider``); critical queries
/// are refetched from the network in parallel before the caller continues, background ones one after the
/// other in a detached task, cache first.
///
/// ```swift
/// let smart = SmartMutationRefetchManager(client: client, registry: registry)
/// let outcome = await smart.perform(mutation: MakePayment(input: input),
///                                   refetching: MakePaymentMutationResult(accountId: "101"))
/// // outcome.refetch?.critical: done; outcome.refetch?.background.report(): later
/// ```
import GraphQLLanguage

public final class SmartMutationRefetchManager: Sendable {
    /// The session's client the refetches run on.
    public let client: GraphQLClient
    /// Query names → operations.
    public let registry: GraphQLQueryRegistry
    private let backgroundTasks = BackgroundTasks()

    /// Creates a manager.
    public init(client: GraphQLClient, registry: GraphQLQueryRegistry) {
        self.client = client
        self.registry = registry
    }

    /// Refetches the critical queries (parallel, `fetchIgnoringCacheData`, awaited), then starts the background
    /// ones (sequential, `returnCacheDataAndFetch`, detached).
    /// - Parameters:
    ///   - mutation: the mutation's refetch lists (critical and background).
    ///   - accountId: given as the `accountId` variable to queries that declare it and whose descriptor does not
    ///     set it (the seed passes the account alongside the descriptors).
    @discardableResult
    public func refetchAfterMutation(
        _ mutation: any MutationResultProvider,
        accountId: String? = nil
    ) async -> SmartRefetchReport {
        var fill = GraphQLJSONObject()
        if let accountId {
            fill["accountId"] = .string(accountId)
        }
        let critical = await client.refetchInParallel(mutation.criticalRefetchQueries, registry: registry, fill: fill)
        let descriptors = mutation.backgroundRefetchQueries
        let client = client
        let registry = registry
        let task = Task.detached {
            var outcomes: [RefetchOutcome] = []
            for descriptor in descriptors {
                let outcome = await client.refetch(
                    descriptor,
                    registry: registry,
                    policy: .returnCacheDataAndFetch,
                    fill: fill
                )
                outcomes.append(outcome)
            }
            return RefetchReport(outcomes: outcomes)
        }
        backgroundTasks.start { _ = await task.value }
        return SmartRefetchReport(
            critical: critical, background: BackgroundRefetch(descriptors: descriptors, task: task))
    }

    /// Performs a mutation and, when it succeeds, its refetches: the critical ones are done when this returns.
    public func perform<Mutation: GraphQLMutation>(
        mutation: Mutation,
        refetching provider: any MutationResultProvider,
        accountId: String? = nil
    ) async -> GraphQLMutationOutcome<Mutation.Data> {
        let result = await client.perform(mutation: mutation)
        guard case .success = result else {
            return GraphQLMutationOutcome(result: result, refetch: nil)
        }
        let refetch = await refetchAfterMutation(provider, accountId: accountId)
        return GraphQLMutationOutcome(result: result, refetch: refetch)
    }

    /// Waits until every background refetch started so far has finished.
    public func waitForBackgroundRefetches() async {
        await backgroundTasks.drain()
    }
}

/// The refetches after one mutation: the critical ones done, the background ones under way.
public struct SmartRefetchReport: Sendable {
    /// The critical refetches' outcomes (all finished).
    public var critical: RefetchReport
    /// The background refetches, running.
    public var background: BackgroundRefetch
}

/// Background refetches in progress.
public struct BackgroundRefetch: Sendable {
    /// The queries, in the order they run.
    public let descriptors: [QueryDescriptor]
    let task: Task<RefetchReport, Never>

    /// Waits for the background refetches and returns their outcomes.
    public func report() async -> RefetchReport {
        await task.value
    }
}

/// A mutation's result and, when it succeeded, the refetches it triggered.
public struct GraphQLMutationOutcome<Data: Sendable>: Sendable {
    /// The mutation's own result.
    public var result: Result<GraphQLResult<Data>, GraphQLCacheError>
    /// The refetches; `nil` when the mutation failed (nothing changed, nothing to refetch).
    public var refetch: SmartRefetchReport?
}
