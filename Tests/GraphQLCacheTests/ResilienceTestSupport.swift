import CacheCore
import FixtureSupport
import GraphQLCache
import Synchronization
import Testing

/// Hears the hits a client reports, with the resilience option that chose each.
final class HitRecorder: CacheInstrumentation {
    private let hits = Mutex<[CacheHit]>([])

    func start(_ operation: CacheOperation, attributes: CacheOperationAttributes) -> CacheOperationToken {
        CacheOperationToken(operation: operation)
    }

    func end(_ token: CacheOperationToken, attributes: CacheOperationAttributes) {}

    func cacheDidServe(_ hit: CacheHit) {
        hits.withLock { $0.append(hit) }
    }

    /// Every hit heard so far, in order.
    var served: [CacheHit] {
        hits.withLock { $0 }
    }
}

extension ClientHarness {
    /// A client whose answers are fresh for 60 s, with `resilience` as its default.
    func resilientClient(
        _ resilience: CacheResilience,
        session: String? = nil,
        instrumentation: (any CacheInstrumentation)? = nil,
        cacheConfig: GraphQLCacheConfig = GraphQLCacheConfig(defaultTimeout: 60)
    ) throws -> GraphQLClient {
        var configuration = GraphQLClient.Configuration(resilience: resilience)
        configuration.instrumentation = instrumentation
        return try client(session: session, configuration: configuration, cacheConfig: cacheConfig)
    }

    /// What the hub's maintenance does to GraphQL records: purges those no rule nor fail-safe window can serve,
    /// with its usual 60 s grace.
    @discardableResult
    func purgeLikeMaintenance(_ client: GraphQLClient) -> GraphQLPurgeReport? {
        guard let cutoff = client.shared.recordPurgeCutoff(now: clock.now(), grace: .seconds(60)) else { return nil }
        return store.purgeRecords(writtenBefore: cutoff)
    }

    /// Makes every later request for `operation` fail with `status` (up to a million of them).
    func failEveryRequest(_ operation: String, status: Int = 503) async throws {
        try await tenant.inject(.status(status), operation: operation, count: 1_000_000)
    }
}

/// `count` concurrent fetches of the accounts summary, their results in any order.
func concurrentSummaries(
    _ client: GraphQLClient, count: Int, resilience: CacheResilience? = nil
) async -> [Result<GraphQLResult<AccountSummaryQuery.Data>, GraphQLCacheError>] {
    await withTaskGroup(of: Result<GraphQLResult<AccountSummaryQuery.Data>, GraphQLCacheError>.self) { group in
        for _ in 0..<count {
            group.addTask { await client.fetch(query: AccountSummaryQuery(), resilience: resilience) }
        }
        var all: [Result<GraphQLResult<AccountSummaryQuery.Data>, GraphQLCacheError>] = []
        for await result in group {
            all.append(result)
        }
        return all
    }
}
