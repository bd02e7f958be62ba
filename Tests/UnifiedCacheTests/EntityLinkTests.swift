import FixtureSupport
import Foundation
import GraphQLCache
import RESTCache
import Testing
import UnifiedCache

@Suite("One entity graph across REST and GraphQL")
struct EntityLinkTests {
    private let restBalance = CachedGET(path: "/api/accounts/101/balance", key: "balances.101")

    private let payment = UntypedGraphQLOperation(
        document: """
            mutation MakePayment($input: PaymentInput!) {
              makePayment(input: $input) { account { id balance availableBalance } transaction { id amount } }
            }
            """,
        operationName: "MakePayment",
        variables: ["input": ["fromAccountId": "101", "payeeId": "payee-alice-1", "amount": 40.0, "reference": "t"]]
    )

    private let graphQLSummary = UntypedGraphQLOperation(
        document: "query AccountSummary { accounts { id name type currency } }",
        operationName: "AccountSummary"
    )

    @Test("a GraphQL makePayment invalidates the cached REST balance of that account")
    func graphQLMutationInvalidatesREST() async throws {
        let harness = try await FacadeHarness("linkgql")
        let alice = harness.session(.alice)
        _ = try await alice.rest.perform(with: restBalance).get()
        let other = CachedGET(path: "/api/accounts/102/balance", key: "balances.102")
        _ = try await alice.rest.perform(with: other).get()

        let paid = await alice.graphQL.perform(operation: payment)
        #expect(paid.isSuccess, "\(paid)")

        let after = try await alice.rest.performWithSource(with: restBalance).get()
        #expect(after.source == .network)
        #expect(try await alice.rest.performWithSource(with: other).get().source == .cache)
    }

    @Test("a GraphQL query that writes the same account leaves the REST balance cached")
    func graphQLQueryDoesNotInvalidateREST() async throws {
        let harness = try await FacadeHarness("linkquery")
        let alice = harness.session(.alice)
        _ = try await alice.rest.perform(with: restBalance).get()
        #expect(await alice.graphQL.fetch(operation: accountBalanceQuery).isSuccess)
        #expect(try await alice.rest.performWithSource(with: restBalance).get().source == .cache)
    }

    @Test("a REST POST /api/payments evicts the account's balance fields from the normalized store, nothing more")
    func restMutationEvictsGraphQLFields() async throws {
        let harness = try await FacadeHarness("linkrest")
        let alice = harness.session(.alice)
        #expect(await alice.graphQL.fetch(operation: accountBalanceQuery).isSuccess)
        #expect(await alice.graphQL.fetch(operation: graphQLSummary).isSuccess)

        _ = try await alice.rest.perform(with: RESTPayment()).get()

        let balance = await alice.graphQL.fetch(operation: accountBalanceQuery, cachePolicy: .returnCacheDataDontFetch)
        #expect(!balance.isSuccess, "the balance should have been evicted")
        let summary = await alice.graphQL.fetch(operation: graphQLSummary, cachePolicy: .returnCacheDataDontFetch)
        #expect(summary.isSuccess, "the account's other fields stay")
        let refreshed = try await alice.graphQL.fetch(operation: accountBalanceQuery).get()
        #expect(refreshed.source == .network)
        #expect(refreshed.data["account"]?.objectValue?["balance"] == .double(2460))
    }
}
