import CacheCore
import FixtureSupport
import GraphQLCache
import Testing

@Suite("GraphQL client: the five cache policies")
struct ClientPolicyTests {
    @Test("cache first answers the second call from the cache: one upstream call")
    func cacheFirst() async throws {
        let harness = try await ClientHarness("policyfirst")
        let client = try harness.client()
        let first = try await client.fetch(query: AccountSummaryQuery()).value()
        let second = try await client.fetch(query: AccountSummaryQuery()).value()
        #expect(first.source == .network)
        #expect(first.wasStored)
        #expect(second.source == .cache)
        #expect(!second.isStale)
        #expect(second.data == first.data)
        #expect(second.data.accounts.map(\.id) == ["101", "102"])
        #expect(try await harness.count("AccountSummary") == 1)
        let statistics = client.statistics()
        #expect(statistics.hits == 1)
        #expect(statistics.misses == 1)
        #expect(statistics.networkFetches == 1)
    }

    @Test("network only fetches every time and updates the cache")
    func networkOnly() async throws {
        let harness = try await ClientHarness("policynetwork")
        let client = try harness.client()
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        let refreshed = try await client.fetch(query: AccountSummaryQuery(), cachePolicy: .fetchIgnoringCacheData)
            .value()
        #expect(refreshed.source == .network)
        #expect(refreshed.wasStored)
        #expect(try await harness.count("AccountSummary") == 2)
        #expect(try await client.fetch(query: AccountSummaryQuery()).value().source == .cache)
        #expect(try await harness.count("AccountSummary") == 2)
    }

    @Test("cache then network returns the cache now and refreshes in the background")
    func cacheThenNetworkInBackground() async throws {
        let harness = try await ClientHarness("policyboth")
        let client = try harness.client()
        let empty = try await client.fetch(query: AccountSummaryQuery(), cachePolicy: .returnCacheDataAndFetch).value()
        #expect(empty.source == .network)
        #expect(try await harness.count("AccountSummary") == 1)

        let cached = try await client.fetch(query: AccountSummaryQuery(), cachePolicy: .returnCacheDataAndFetch)
            .value()
        #expect(cached.source == .cache)
        await client.waitForBackgroundRefreshes()
        #expect(try await harness.count("AccountSummary") == 2)
    }

    @Test("cache then network as a sequence yields the cached answer, then the network's")
    func cacheThenNetworkSequence() async throws {
        let harness = try await ClientHarness("policyseq")
        let client = try harness.client()
        var sources: [GraphQLResultSource] = []
        for await result in client.fetchResults(query: AccountSummaryQuery(), cachePolicy: .returnCacheDataAndFetch) {
            sources.append(try result.value().source)
        }
        #expect(sources == [.network])

        _ = try await client.perform(mutation: MakePaymentMutation(fromAccountId: "101", amount: 1)).value()
        var balances: [(GraphQLResultSource, Double)] = []
        for await result in client.fetchResults(query: AccountSummaryQuery(), cachePolicy: .returnCacheDataAndFetch) {
            let answer = try result.value()
            balances.append((answer.source, answer.data.accounts[0].balance))
        }
        #expect(balances.map(\.0) == [.cache, .network])
        #expect(balances.map(\.1) == [2499, 2499])
        #expect(try await harness.count("AccountSummary") == 2)
    }

    @Test("cache only never fetches: a miss is a typed error, a hit is served")
    func cacheOnly() async throws {
        let harness = try await ClientHarness("policyonly")
        let client = try harness.client()
        let miss = await client.fetch(query: AccountSummaryQuery(), cachePolicy: .returnCacheDataDontFetch)
        #expect(miss.failure?.code == .cacheMiss)
        #expect(try await harness.count("AccountSummary") == 0)

        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        let hit = try await client.fetch(query: AccountSummaryQuery(), cachePolicy: .returnCacheDataDontFetch).value()
        #expect(hit.source == .cache)
        #expect(try await harness.count("AccountSummary") == 1)
    }

    @Test("cache only serves a stale answer marked stale")
    func cacheOnlyStale() async throws {
        let harness = try await ClientHarness("policyonlystale")
        let client = try harness.client()
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        harness.clock.advance(seconds: 301)
        let stale = try await client.fetch(query: AccountSummaryQuery(), cachePolicy: .returnCacheDataDontFetch)
            .value()
        #expect(stale.isStale)
        #expect(stale.age == .seconds(301))
        #expect(client.statistics().staleHits == 1)
    }

    @Test("no cache neither reads nor stores")
    func noCache() async throws {
        let harness = try await ClientHarness("policynone")
        let client = try harness.client()
        let answer = try await client.fetch(query: AccountSummaryQuery(), cachePolicy: .fetchIgnoringCacheCompletely)
            .value()
        #expect(answer.source == .network)
        #expect(!answer.wasStored)
        #expect(harness.store.recordCount(in: client.scope) == 0)
        let miss = await client.fetch(query: AccountSummaryQuery(), cachePolicy: .returnCacheDataDontFetch)
        #expect(miss.failure?.code == .cacheMiss)

        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        _ = try await client.fetch(query: AccountSummaryQuery(), cachePolicy: .fetchIgnoringCacheCompletely).value()
        #expect(try await harness.count("AccountSummary") == 3)
    }

    @Test("a network failure under cache then network leaves the cached answer in place")
    func cacheThenNetworkFailure() async throws {
        let harness = try await ClientHarness("policybothfail")
        let client = try harness.client()
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        try await harness.tenant.inject(.status(503), operation: "AccountSummary")
        var results: [Result<GraphQLResult<AccountSummaryQuery.Data>, GraphQLCacheError>] = []
        for await result in client.fetchResults(query: AccountSummaryQuery(), cachePolicy: .returnCacheDataAndFetch) {
            results.append(result)
        }
        #expect(results.count == 2)
        #expect(try results[0].value().source == .cache)
        #expect(results[1].failure?.code == .httpStatus)
        #expect(results[1].failure?.httpStatus == 503)
        let after = await client.fetch(query: AccountSummaryQuery(), cachePolicy: .returnCacheDataDontFetch)
        #expect(try after.value().data.accounts.count == 2)
    }
}
