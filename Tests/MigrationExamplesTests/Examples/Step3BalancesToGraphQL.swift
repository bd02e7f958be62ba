import Foundation
import GraphQLCache
import RESTCache
import UnifiedCache

// MIGRATION.md, step 3: moving balances from REST to GraphQL, and a domain of your own. Every declaration here is
// quoted in MIGRATION.md; edit both together.

/// The balances feature, read through GraphQL. `AccountBalance` is one of the operation names the built-in
/// balances domain lists, and the two fields it reads are the domain's schema coordinates.
struct AccountBalanceQuery: GraphQLQuery, CacheableQuery {
    static let document = """
        query AccountBalance($id: ID!) {
          account(id: $id) { id balance availableBalance }
        }
        """
    static let operationName = "AccountBalance"
    static let cacheTimeout: QueryCacheTimeout = 30

    let accountId: String
    var variables: GraphQLJSONObject { ["id": .string(accountId)] }

    struct Data: Decodable, Sendable {
        var account: Account?

        struct Account: Decodable, Sendable {
            var id: String
            var balance: Double
            var availableBalance: Double
        }
    }
}

/// The upstream knows no such account.
struct AccountNotFound: Error, Equatable {
    var accountId: String
}

extension BankBFF {
    /// GET /balances/{id}, now answered by GraphQL: the route's callers get the same `Balance` as before.
    func balanceFromGraphQL(
        sessionID: String, userID: String, token: String, accountId: String
    ) async throws -> Balance {
        let session = session(sessionID, userID: userID, token: token)
        let result = try await session.graphQL.fetch(query: AccountBalanceQuery(accountId: accountId)).get()
        guard let account = result.data.account else { throw AccountNotFound(accountId: accountId) }
        return Balance(accountId: account.id, balance: account.balance, availableBalance: account.availableBalance)
    }
}

extension CacheDomain.Name {
    /// Search results: a feature the built-in banking map does not know.
    static let search: Self = "search"
}

/// The built-in map plus the search domain, with its own policy: what a settings file can say too.
func settingsWithSearchDomain() throws -> CacheSettings {
    var map = CacheDomainMap.banking
    try map.register(
        CacheDomain(
            name: .search,
            summary: "Search results over accounts, payees and transactions.",
            restKeyPrefixes: ["search."],
            graphQLOperations: ["Search"],
            schemaCoordinates: [SchemaCoordinate("Query.search")]
        )
    )
    return CacheSettings(domainPolicies: [.search: .custom(seconds: 60)], domainMap: map)
}

extension DefaultUnifiedCacheManager {
    /// A sixteenth granular method, made the way the built-in fifteen are.
    @discardableResult
    func clearSearchCache() async -> UnifiedClearReport {
        await clear(domain: .search, operation: "clearSearchCache()")
    }
}
