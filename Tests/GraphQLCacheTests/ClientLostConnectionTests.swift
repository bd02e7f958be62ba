import CurlHTTP
import FixtureSupport
import Foundation
import GraphQLCache
import Testing

/// The fixture's `dropReused` fault: the upstream reads an operation that came on a reused keep-alive connection,
/// then closes the connection without answering.
@Suite("GraphQL client: an operation whose reused connection died")
struct ClientLostConnectionTests {
    @Test("a mutation is sent once and fails as transportFailed carrying notRetried; nothing is stored")
    func mutationIsNotResent() async throws {
        let harness = try await ClientHarness("lostmutation")
        let client = try harness.client()
        _ = try await client.fetch(query: AccountSummaryQuery()).value()  // opens the keep-alive connection
        let recordsBefore = harness.store.recordCount(in: client.scope)
        try await harness.tenant.inject(.dropReused, operation: "MakePayment")

        let error = try #require(
            await client.perform(mutation: MakePaymentMutation(fromAccountId: "101", amount: 5)).failure)
        #expect(error.code == .transportFailed)
        #expect(error.transportError?.code == .notRetried)
        #expect(try await harness.count("MakePayment") == 1)
        #expect(harness.store.recordCount(in: client.scope) == recordsBefore)
    }

    @Test("a query sent by POST is resent once on a new connection and succeeds")
    func queryIsResent() async throws {
        let harness = try await ClientHarness("lostquery")
        let client = try harness.client()
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        try await harness.tenant.inject(.dropReused, operation: "AccountSummary")

        let result = try await client.fetch(query: AccountSummaryQuery(), cachePolicy: .fetchIgnoringCacheData).value()
        #expect(result.source == .network)
        #expect(try await harness.count("AccountSummary") == 3)  // first fetch, dropped, resent
    }
}
