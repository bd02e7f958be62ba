import CacheCore
import CurlHTTP
import FixtureSupport
import Foundation
import GraphQLCache
import Testing

@Suite("A closed client refuses work: nothing is sent, read or stored")
struct ClientCloseTests {
    private let policies: [GraphQLCachePolicy] = [
        .returnCacheDataElseFetch, .fetchIgnoringCacheData, .returnCacheDataAndFetch, .returnCacheDataDontFetch,
        .fetchIgnoringCacheCompletely,
    ]

    @Test("queries under every policy, their sequences and mutations fail with the closed error, and nothing is sent")
    func closedClientRefusesEverything() async throws {
        let harness = try await ClientHarness("gqlcloserefuse")
        let client = try harness.client()
        #expect(!client.isClosed)
        client.close()
        #expect(client.isClosed)

        for policy in policies {
            expectClosed(await client.fetch(query: AccountSummaryQuery(), cachePolicy: policy))
            var streamed = 0
            for await result in client.fetchResults(query: AccountSummaryQuery(), cachePolicy: policy) {
                expectClosed(result)
                streamed += 1
            }
            #expect(streamed == 1)
        }
        expectClosed(await client.perform(mutation: MakePaymentMutation(fromAccountId: "101", amount: 1)))

        #expect(try await harness.tenant.counters().requests == 0)
        #expect(harness.store.recordCount(in: .session("alice")) == 0)
    }

    @Test("a query cached before close is not served after it, and close clears nothing")
    func closedClientReadsNothing() async throws {
        let harness = try await ClientHarness("gqlcloseread")
        let client = try harness.client()
        #expect(try await client.fetch(query: AccountSummaryQuery()).value().source == .network)
        #expect(try await client.fetch(query: AccountSummaryQuery()).value().source == .cache)
        let records = harness.store.recordCount(in: .session("alice"))
        client.close()

        expectClosed(await client.fetch(query: AccountSummaryQuery()))
        expectClosed(await client.fetch(query: AccountSummaryQuery(), cachePolicy: .returnCacheDataDontFetch))
        #expect(records > 0)
        #expect(harness.store.recordCount(in: .session("alice")) == records)
        #expect(try await harness.count("AccountSummary") == 1)
    }

    @Test("a query in flight at close is delivered but not stored, while an open client stores its own")
    func queryInFlightAtCloseIsDeliveredNotStored() async throws {
        let harness = try await ClientHarness(
            "gqlcloseflight", transportConfiguration: CurlHTTPClient.Configuration(enableHTTP2: false))
        try await harness.tenant.holdAnswers(operation: "AccountSummary")
        let alice = try harness.client(.alice)
        let bob = try harness.client(.bob)
        let aliceFlight = Task { await alice.fetch(query: AccountSummaryQuery()) }
        let bobFlight = Task { await bob.fetch(query: AccountSummaryQuery()) }
        try await waitUntil { try await harness.count("AccountSummary") == 2 }
        alice.close()

        try await harness.tenant.releaseHeldAnswers()
        let delivered = try await aliceFlight.value.value()
        #expect(delivered.source == .network)
        #expect(!delivered.wasStored)
        #expect(try await bobFlight.value.value().wasStored)
        #expect(harness.store.recordCount(in: .session("alice")) == 0)
        #expect(harness.store.recordCount(in: .session("bob")) > 0)
        #expect(alice.queryTimestamps.isEmpty)
    }

    @Test("a mutation in flight at close is delivered but its result is not merged")
    func mutationInFlightAtCloseIsNotMerged() async throws {
        let harness = try await ClientHarness("gqlclosemutation")
        try await harness.tenant.holdAnswers(operation: "MakePayment")
        let client = try harness.client()
        let flight = Task { await client.perform(mutation: MakePaymentMutation(fromAccountId: "101", amount: 1)) }
        try await waitUntil { try await harness.count("MakePayment") == 1 }
        client.close()

        try await harness.tenant.releaseHeldAnswers()
        let delivered = try await flight.value.value()
        #expect(!delivered.wasStored)
        #expect(harness.store.recordCount(in: .session("alice")) == 0)
    }

    @Test("a cache-then-network refresh in flight at close does not write its answer")
    func backgroundRefreshAtCloseIsNotStored() async throws {
        let harness = try await ClientHarness("gqlcloserefresh")
        let client = try harness.client()
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        let firstFetch = try #require(client.queryTimestamps.first?.fetchedAt)
        harness.clock.advance(seconds: 10)
        try await harness.tenant.holdAnswers(operation: "AccountSummary")

        let cached = await client.fetch(query: AccountSummaryQuery(), cachePolicy: .returnCacheDataAndFetch)
        #expect(try cached.value().source == .cache)
        try await waitUntil { try await harness.count("AccountSummary") == 2 }
        client.close()
        try await harness.tenant.releaseHeldAnswers()
        await client.waitForBackgroundRefreshes()

        #expect(client.queryTimestamps.map(\.fetchedAt) == [firstFetch])
    }

    private func expectClosed<Value>(
        _ result: Result<Value, GraphQLCacheError>, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error = result.failure else {
            Issue.record("expected the closed error, got a success", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == .closed, sourceLocation: sourceLocation)
        #expect(error.description.contains("ended"), sourceLocation: sourceLocation)
        #expect(!error.description.contains("alice"), sourceLocation: sourceLocation)
    }
}
