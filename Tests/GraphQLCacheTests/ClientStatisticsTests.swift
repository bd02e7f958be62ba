import CacheCore
import FixtureSupport
import GraphQLCache
import Synchronization
import Testing

@Suite("GraphQL client: statistics, events and transport options")
struct ClientStatisticsTests {
    @Test("hits, stale hits, misses, network fetches and joins are counted per session and emitted as events")
    func statisticsAndEvents() async throws {
        let harness = try await ClientHarness("gqlstats")
        let client = try harness.client()
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        harness.clock.advance(seconds: 301)
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        let statistics = client.statistics()
        #expect(statistics.misses == 1)
        #expect(statistics.hits == 1)
        #expect(statistics.staleHits == 1)
        #expect(statistics.networkFetches == 2)
        #expect(statistics.inserts > 0)
        #expect(statistics.effectiveHitRate == 2.0 / 3.0)

        let scope = client.scope
        let events = harness.events.events
        #expect(events.contains(.miss(scope: scope, key: "AccountSummary")))
        #expect(events.contains(.hit(scope: scope, key: "AccountSummary")))
        #expect(events.contains(.stale(scope: scope, key: "AccountSummary", staleness: .seconds(1))))
        let calls = events.compactMap { event -> Int? in
            if case .networkCall(scope, "AccountSummary", let status, _) = event {
                return status
            }
            return nil
        }
        #expect(calls == [200, 200])
        #expect(harness.store.statistics(for: .session("bob")) == CacheStatistics())
    }

    @Test("queries can be sent with GET; mutations are always POSTed")
    func getForQueries() async throws {
        let harness = try await ClientHarness("gqlget")
        let client = try harness.client(configuration: GraphQLClient.Configuration(usesGETForQueries: true))
        let answer = try await client.fetch(query: RecentTransactionsQuery(accountId: "101")).value()
        #expect(answer.data.transactions.count == 3)
        _ = try await client.perform(mutation: MakePaymentMutation(fromAccountId: "101", amount: 1)).value()
        let counters = try await harness.tenant.counters()
        #expect(counters.route("GET /graphql") == 1)
        #expect(counters.route("POST /graphql") == 1)
    }

    @Test("a caching policy hook can switch caching off per operation or replace its timeout")
    func cachingPolicyHook() async throws {
        let harness = try await ClientHarness("gqlhook")
        let configuration = GraphQLClient.Configuration(cachingPolicy: { name, requested in
            switch name {
            case "Profile": nil
            case "AccountSummary": .seconds(10)
            default: requested
            }
        })
        let client = try harness.client(configuration: configuration)
        _ = try await client.fetch(query: ProfileQuery()).value()
        _ = try await client.fetch(query: ProfileQuery()).value()
        #expect(try await harness.count("Profile") == 2)
        #expect(harness.store.record("Profile:alice", in: client.scope) == nil)
        #expect(
            await client.fetch(query: ProfileQuery(), cachePolicy: .returnCacheDataDontFetch).failure?.code
                == .cacheMiss)

        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        harness.clock.advance(seconds: 11)
        #expect(try await client.fetch(query: AccountSummaryQuery()).value().source == .network)
    }

    @Test("the caching policy hook is asked once per fetch: a miss, a hit, a hit with resilience options, a refetch")
    func cachingPolicyHookAskedOnce() async throws {
        let harness = try await ClientHarness("gqlhookonce")
        let asked = HookCalls()
        let configuration = GraphQLClient.Configuration(cachingPolicy: { _, requested in
            asked.count.withLock { $0 += 1 }
            return requested
        })
        let client = try harness.client(configuration: configuration)
        #expect(try await client.fetch(query: ProfileQuery()).value().source == .network)
        #expect(asked.value == 1)
        #expect(try await client.fetch(query: ProfileQuery()).value().source == .cache)
        #expect(asked.value == 2)
        let eager = CacheResilience(eagerRefreshThreshold: 0.9)
        #expect(try await client.fetch(query: ProfileQuery(), resilience: eager).value().source == .cache)
        #expect(asked.value == 3)
        let refetched = try await client.fetch(query: ProfileQuery(), cachePolicy: .fetchIgnoringCacheData).value()
        #expect(refetched.source == .network)
        #expect(asked.value == 4)
        #expect(try await harness.count("Profile") == 2)
    }

    @Test("documents are parsed once per text and shared between sessions")
    func documentCache() async throws {
        let harness = try await ClientHarness("gqldocs")
        let alice = try harness.client(.alice)
        let bob = try harness.client(.bob)
        _ = try await alice.fetch(query: ProfileQuery()).value()
        _ = try await bob.fetch(query: ProfileQuery()).value()
        let untyped = UntypedGraphQLOperation(document: "query Me { me { id } }")
        _ = try await alice.fetch(operation: untyped).value()
        _ = try await bob.fetch(operation: untyped).value()
        #expect(harness.documents.count == 2)
        let small = GraphQLDocumentCache(maximumDocuments: 1)
        let client = try GraphQLClient(
            url: harness.tenant.graphqlURL,
            transport: harness.transport,
            store: harness.store,
            scope: .session("small"),
            credentials: .bearer(FixtureTenant.User.alice.token),
            documents: small
        )
        _ = try await client.fetch(operation: UntypedGraphQLOperation(document: "query A { me { id } }")).value()
        _ = try await client.fetch(operation: UntypedGraphQLOperation(document: "query B { me { id } }")).value()
        #expect(small.count == 1)
    }
}

/// How many times a caching policy hook was asked.
private final class HookCalls: Sendable {
    let count = Mutex(0)

    var value: Int {
        count.withLock { $0 }
    }
}
