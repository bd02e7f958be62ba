import UnifiedCache

// README.md's GraphQL example, verbatim (modulo indentation): compiled here, and QuotedDocumentsTests checks that
// the README quotes nothing else. The Hummingbird and Vapor routes are compiled by the Integrations package.
enum ReadmeGraphQLExample {
    struct AccountBalanceQuery: GraphQLQuery, CacheableQuery {
        struct Data: Decodable, Sendable {
            struct Account: Decodable, Sendable {
                var id: String
                var balance: Double
            }
            var account: Account?
        }

        static let operationName = "AccountBalance"
        static let document = "query AccountBalance($id: ID!) { account(id: $id) { id balance } }"
        static let cacheTimeout: QueryCacheTimeout = .seconds(30)
        var accountId: String
        var variables: GraphQLJSONObject { ["id": .string(accountId)] }
    }

    static func balance(in session: CacheSession) async throws -> AccountBalanceQuery.Data {
        let balance = try await session.graphQL.data(for: AccountBalanceQuery(accountId: "101"))
        return balance
    }
}
