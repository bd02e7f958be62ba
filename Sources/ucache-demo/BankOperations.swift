import Foundation
import UnifiedCache

// The BFF's view of the bank: REST requests as a NABAPICoreKit caller writes them, GraphQL operations as typed
// queries and mutations. Names follow the built-in domain map, so the granular clears find them.

struct AccountSummary: Decodable, Sendable {
    var id: String
    var accountToken: String
    var name: String
}

/// `GET /api/accounts` — the account summary screen, cached 5 minutes per session.
struct AccountSummaryRequest: RequestType {
    typealias Response = [AccountSummary]
    var path: String { "/api/accounts" }
    var cache: RequestCache? = RequestCache(key: "accountSummary.accounts", timeout: .seconds(300))
}

/// `query AccountBalance` — the balance tile.
struct AccountBalanceQuery: GraphQLQuery, CacheableQuery {
    static let operationName = "AccountBalance"
    static let document = "query AccountBalance($id: ID!) { account(id: $id) { id balance availableBalance } }"
    static let cacheTimeout: QueryCacheTimeout = .useDefault

    struct Data: Decodable, Sendable {
        struct Account: Decodable, Sendable {
            var id: String
            var balance: Double
            var availableBalance: Double
        }
        var account: Account?
    }

    var accountId: String
    var variables: GraphQLJSONObject { ["id": .string(accountId)] }
}

/// `query UserProfile` — the greeting.
struct UserProfileQuery: GraphQLQuery {
    static let operationName = "UserProfile"
    static let document = "query UserProfile { profile { id displayName email } }"

    struct Data: Decodable, Sendable {
        struct Profile: Decodable, Sendable {
            var id: String
            var displayName: String
        }
        var profile: Profile
    }
}

/// `query TransactionHistory` — refetched in the background after a payment.
struct TransactionHistoryQuery: GraphQLQuery {
    static let operationName = "TransactionHistory"
    static let document = "query TransactionHistory($id: ID!) { transactions(accountId: $id, first: 5) { id amount } }"

    struct Data: Decodable, Sendable {
        struct Transaction: Decodable, Sendable {
            var id: String
            var amount: Double
        }
        var transactions: [Transaction]
    }

    var accountId: String
    var variables: GraphQLJSONObject { ["id": .string(accountId)] }
}

/// `mutation MakePayment` — its result updates `Account:<id>` in the normalized store.
struct MakePaymentMutation: GraphQLMutation {
    static let operationName = "MakePayment"
    static let document = """
        mutation MakePayment($input: PaymentInput!) {
          makePayment(input: $input) { account { id balance availableBalance } transaction { id amount } }
        }
        """

    struct Data: Decodable, Sendable {
        struct Result: Decodable, Sendable {
            var account: AccountBalanceQuery.Data.Account
        }
        var makePayment: Result
    }

    var fromAccountId: String
    var payeeId: String
    var amount: Double
    var variables: GraphQLJSONObject {
        ["input": ["fromAccountId": .string(fromAccountId), "payeeId": .string(payeeId), "amount": .double(amount)]]
    }
}

/// Strategy 2 of the seeds: the balance must be right when the payment returns; the history can follow.
struct PaymentRefetches: MutationResultProvider {
    var accountId: String
    var criticalRefetchQueries: [QueryDescriptor] {
        [QueryDescriptor(queryType: "AccountBalance", variables: ["id": .string(accountId)], priority: .critical)]
    }
    var backgroundRefetchQueries: [QueryDescriptor] {
        [QueryDescriptor(queryType: "TransactionHistory", variables: ["id": .string(accountId)], priority: .background)]
    }
}
