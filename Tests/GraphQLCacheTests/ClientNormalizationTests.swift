import CacheCore
import FixtureSupport
import GraphQLCache
import Testing

@Suite("GraphQL client: query-based versus normalized caching (the seeds' scenarios)")
struct ClientNormalizationTests {
    @Test("without key providers each query keeps its own copy: a payment leaves the other queries stale")
    func queryBasedDuplication() async throws {
        let harness = try await ClientHarness("querybased", keyed: false)
        let client = try harness.client()
        let summary = try await client.fetch(query: AccountSummaryQuery()).value()
        let balance = try await client.fetch(query: AccountBalanceQuery(id: "101")).value()
        #expect(summary.data.accounts[0].balance == 2500)
        #expect(balance.data.account?.balance == 2500)
        // Account 101 is held twice: under each query's path.
        let paths = harness.store.recordKeys(in: client.scope).filter { $0.hasPrefix("QUERY_ROOT.") }
        #expect(paths.contains("QUERY_ROOT.accounts.0"))
        #expect(paths.contains(#"QUERY_ROOT.account({"id":"101"})"#))

        let payment = try await client.perform(mutation: MakePaymentMutation(fromAccountId: "101", amount: 100))
            .value()
        #expect(payment.data.makePayment.account.balance == 2400)
        // Cache first still answers 2500 from both copies: the seeds' "updates don't propagate".
        let staleSummary = try await client.fetch(query: AccountSummaryQuery()).value()
        let staleBalance = try await client.fetch(query: AccountBalanceQuery(id: "101")).value()
        #expect(staleSummary.source == .cache)
        #expect(staleSummary.data.accounts[0].balance == 2500)
        #expect(staleBalance.data.account?.balance == 2500)
        #expect(try await harness.count("AccountSummary") == 1)
        #expect(try await harness.count("AccountBalance") == 1)
    }

    @Test("with key providers a payment updates the balance a cache-only read of another query sees")
    func normalizedAutoUpdate() async throws {
        let harness = try await ClientHarness("normalized")
        let client = try harness.client()
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        _ = try await client.fetch(query: AccountBalanceQuery(id: "101")).value()
        #expect(harness.store.record("Account:101", in: client.scope) != nil)

        let payment = try await client.perform(mutation: MakePaymentMutation(fromAccountId: "101", amount: 100))
            .value()
        #expect(payment.wasStored)
        let summary = try await client.fetch(query: AccountSummaryQuery(), cachePolicy: .returnCacheDataDontFetch)
            .value()
        let balance = try await client.fetch(
            query: AccountBalanceQuery(id: "101"), cachePolicy: .returnCacheDataDontFetch
        )
        .value()
        #expect(summary.data.accounts[0].balance == 2400)
        #expect(balance.data.account?.balance == 2400)
        #expect(balance.data.account?.availableBalance == 2350)
        #expect(try await harness.count("AccountSummary") == 1)
        #expect(try await harness.count("AccountBalance") == 1)
        #expect(try await harness.count("MakePayment") == 1)
    }

    @Test("a query never fetched is answered from records other queries wrote")
    func crossQueryHit() async throws {
        let harness = try await ClientHarness("crossquery")
        let client = try harness.client()
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        let names = UntypedGraphQLOperation(document: "query Names { accounts { id name } }")
        let answer = try await client.fetch(operation: names).value()
        #expect(answer.source == .cache)
        let expected = try jsonObject(
            """
            {"accounts": [{"__typename": "Account", "id": "101", "name": "Everyday Account"},
                          {"__typename": "Account", "id": "102", "name": "Goal Saver"}]}
            """
        )
        #expect(answer.data == expected)
        #expect(answer.data["accounts"]?.arrayValue?.first?.objectValue?.keys == ["__typename", "id", "name"])
        #expect(try await harness.count("Names") == 0)
    }

    @Test("the client adds __typename to every selection set below the root before sending")
    func typenameInsertion() async throws {
        let harness = try await ClientHarness("typenames")
        let client = try harness.client()
        let operation = UntypedGraphQLOperation(
            document: """
                query Search($term: String!) {
                  search(term: $term) { ... on Account { id name } ... on Payee { id name } }
                  me { ...Me }
                }
                fragment Me on User { id profile { displayName } }
                """,
            variables: ["term": "Everyday"]
        )
        let answer = try await client.fetch(operation: operation).value()
        let first = try #require(answer.data["search"]?.arrayValue?.first)
        #expect(first["__typename"] == "Account")
        #expect(answer.data["me"]?["profile"]?["__typename"] == "Profile")
        #expect(answer.data["__typename"] == nil)
        #expect(harness.store.record("Account:101", in: client.scope) != nil)
        #expect(harness.store.record("User:alice", in: client.scope) != nil)
    }

    @Test("without __typename insertion a keyed store refuses the answer with a typed error, storing nothing")
    func typenameRequired() async throws {
        let harness = try await ClientHarness("notypenames")
        let client = try harness.client(configuration: GraphQLClient.Configuration(addsTypenameToSelections: false))
        let result = await client.fetch(query: AccountSummaryQuery())
        #expect(result.failure?.code == .missingTypename)
        #expect(harness.store.recordCount(in: client.scope) == 0)
        let answer = try await client.fetch(query: AccountSummaryQuery(), cachePolicy: .fetchIgnoringCacheCompletely)
            .value()
        #expect(answer.data.accounts.count == 2)
    }
}
