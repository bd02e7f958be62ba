import CacheCore
import FixtureSupport
import GraphQLCache
import Testing

@Suite("GraphQL client: upstream errors, partial data and transport failures")
struct ClientErrorTests {
    @Test("GraphQL errors with partial data fail with the data on the error, and nothing is stored")
    func partialDataNotCached() async throws {
        let harness = try await ClientHarness("partial")
        let client = try harness.client()
        let result = await client.fetch(query: FlakyQuery())
        let error = try #require(result.failure)
        #expect(error.code == .graphQLErrors)
        #expect(error.httpStatus == 200)
        #expect(error.graphQLErrors.map(\.code) == ["FLAKY"])
        #expect(error.graphQLErrors.first?.dottedPath == "flaky")
        #expect(error.partialData?["profile"]?["displayName"] == "Alice Nguyen")
        #expect(!error.description.contains("Alice"))
        #expect(harness.store.recordCount(in: client.scope) == 0)
        #expect(client.queryTimestamps.isEmpty)
        _ = await client.fetch(query: FlakyQuery())
        #expect(try await harness.count("Flaky") == 2)
    }

    @Test("partial data can be delivered without caching, or delivered and cached when configured")
    func partialDataPolicies() async throws {
        let harness = try await ClientHarness("partialpolicy")
        let delivering = try harness.client(
            session: "deliver",
            configuration: GraphQLClient.Configuration(partialDataPolicy: .deliver)
        )
        let delivered = try await delivering.fetch(query: FlakyQuery()).value()
        #expect(delivered.data.flaky == nil)
        #expect(delivered.errors.map(\.code) == ["FLAKY"])
        #expect(!delivered.wasStored)
        #expect(harness.store.recordCount(in: delivering.scope) == 0)

        let caching = try harness.client(
            session: "cache",
            configuration: GraphQLClient.Configuration(partialDataPolicy: .deliverAndCache)
        )
        let cached = try await caching.fetch(query: FlakyQuery()).value()
        #expect(cached.wasStored)
        let again = try await caching.fetch(query: FlakyQuery()).value()
        #expect(again.source == .cache)
        #expect(try await harness.count("Flaky") == 2)
    }

    @Test("an unknown account is null plus a NOT_FOUND error: a typed failure")
    func notFound() async throws {
        let harness = try await ClientHarness("notfound")
        let client = try harness.client()
        let error = try #require(await client.fetch(query: AccountBalanceQuery(id: "201")).failure)
        #expect(error.code == .graphQLErrors)
        #expect(error.graphQLErrors.first?.message == "not found")
        #expect(error.graphQLErrors.first?.code == "NOT_FOUND")
        #expect(error.graphQLErrors.first?.locations.isEmpty == false)
        #expect(harness.store.recordCount(in: client.scope) == 0)
    }

    @Test("a failing mutation (insufficient funds) changes nothing in the store")
    func failingMutation() async throws {
        let harness = try await ClientHarness("mutationerror")
        let client = try harness.client()
        _ = try await client.fetch(query: AccountBalanceQuery(id: "101")).value()
        let before = harness.store.records(in: client.scope)
        let error = try #require(
            await client.perform(mutation: MakePaymentMutation(fromAccountId: "101", amount: 1_000_000)).failure
        )
        #expect(error.code == .graphQLErrors)
        #expect(error.graphQLErrors.first?.code == "INSUFFICIENT_FUNDS")
        #expect(error.partialData == nil)
        #expect(harness.store.records(in: client.scope) == before)
    }

    @Test("HTTP error statuses are httpStatus failures; nothing is stored and the next call retries")
    func httpStatus() async throws {
        let harness = try await ClientHarness("httpstatus")
        let client = try harness.client()
        try await harness.tenant.inject(.status(503), operation: "AccountSummary")
        let error = try #require(await client.fetch(query: AccountSummaryQuery()).failure)
        #expect(error.code == .httpStatus)
        #expect(error.httpStatus == 503)
        #expect(harness.store.recordCount(in: client.scope) == 0)
        #expect(try await client.fetch(query: AccountSummaryQuery()).value().source == .network)
    }

    @Test("an unknown token is a 401 httpStatus failure with the body's errors")
    func unauthorized() async throws {
        let harness = try await ClientHarness("unauthorized")
        let client = try GraphQLClient(
            url: harness.tenant.graphqlURL,
            transport: harness.transport,
            store: harness.store,
            scope: .session("intruder"),
            credentials: .bearer("token-nobody")
        )
        let error = try #require(await client.fetch(query: AccountSummaryQuery()).failure)
        #expect(error.code == .httpStatus)
        #expect(error.httpStatus == 401)
        #expect(error.graphQLErrors.first?.message == "unauthorized")
        #expect(!error.description.contains("token-nobody"))
    }

    @Test("a dropped connection is a transportFailed failure carrying the CurlHTTPError")
    func transportFailure() async throws {
        let harness = try await ClientHarness("transport")
        let client = try harness.client()
        try await harness.tenant.inject(.drop, operation: "AccountSummary")
        let error = try #require(await client.fetch(query: AccountSummaryQuery()).failure)
        #expect(error.code == .transportFailed)
        #expect(error.transportError != nil)
        #expect(client.statistics().networkFetches == 1)
        #expect(harness.store.recordCount(in: client.scope) == 0)
    }

    @Test("a cancelled caller gets a cancelled error")
    func cancellation() async throws {
        let harness = try await ClientHarness("cancel")
        let client = try harness.client()
        try await harness.tenant.holdAnswers(operation: "AccountSummary")
        let task = Task { await client.fetch(query: AccountSummaryQuery()) }
        try await waitUntil { try await harness.count("AccountSummary") == 1 }
        task.cancel()
        #expect(await task.value.failure?.code == .cancelled)
        try await harness.tenant.releaseHeldAnswers()
    }
}
