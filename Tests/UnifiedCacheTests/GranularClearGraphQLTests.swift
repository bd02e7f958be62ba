import FixtureSupport
import Foundation
import GraphQLCache
import Testing
import UnifiedCache

/// One GraphQL query per feature, named as the built-in domain map expects.
private func featureQueries(accountId: String) -> [(domain: String, operation: UntypedGraphQLOperation)] {
    func query(_ name: String, _ body: String, _ variables: GraphQLJSONObject = GraphQLJSONObject())
        -> UntypedGraphQLOperation
    {
        UntypedGraphQLOperation(document: "query \(name)\(body)", operationName: name, variables: variables)
    }
    let account: GraphQLJSONObject = ["id": .string(accountId)]
    return [
        (
            "balances",
            query("AccountBalance", "($id: ID!) { account(id: $id) { id balance availableBalance } }", account)
        ),
        ("paymentList", query("PaymentList", " { payments { id amount } }")),
        ("accountSummary", query("AccountSummary", " { accounts { id name type currency } }")),
        (
            "transactionHistory",
            query(
                "TransactionHistory",
                "($id: ID!) { transactions(accountId: $id, first: 3) { id amount } }", account)
        ),
        ("cardsExperience", query("CardsExperience", " { cards { id last4 status } }")),
        ("payees", query("Payees", " { payees { id name } }")),
        ("scheduledPayments", query("ScheduledPayments", " { scheduledPayments { id amount nextDate } }")),
        ("userProfile", query("UserProfile", " { profile { id displayName email } }")),
        ("statements", query("Statements", " { statements { id period } }")),
        ("offers", query("Offers", " { offers { id title } }")),
        ("notifications", query("Notifications", " { notifications { id title read } }")),
        ("featureFlags", query("FeatureFlags", " { featureFlags { name enabled } }")),
    ]
}

@Suite("Each granular clear removes exactly its feature's GraphQL data, in one session only")
struct GranularClearGraphQLTests {
    @Test("a feature clear makes exactly its queries miss, in this session only", arguments: granularMethods.indices)
    func featureClear(index: Int) async throws {
        let (domain, clear) = granularMethods[index]
        let harness = try await FacadeHarness("gqlgranular\(index)")
        let alice = harness.session(.alice)
        let bob = harness.session(.bob)
        for (session, account) in [(alice, "101"), (bob, "201")] {
            for (feature, operation) in featureQueries(accountId: account) {
                let result = await session.graphQL.fetch(operation: operation)
                #expect(result.isSuccess, "populating \(feature): \(result)")
            }
        }
        let report = await clear(alice.cacheManager)
        #expect(report.succeeded, "\(report)")
        #expect(report.records + report.fields > 0, "\(domain) removed nothing: \(report)")

        for (session, account, name) in [(alice, "101", "alice"), (bob, "201", "bob")] {
            for (feature, operation) in featureQueries(accountId: account) {
                let cached = await session.graphQL.fetch(operation: operation, cachePolicy: .returnCacheDataDontFetch)
                let shouldMiss = name == "alice" && feature == domain
                #expect(cached.isSuccess != shouldMiss, "\(feature) in \(name) after clearing \(domain)")
            }
        }
    }
}

extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
