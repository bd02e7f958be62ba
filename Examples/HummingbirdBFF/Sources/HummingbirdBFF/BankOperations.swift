import Hummingbird
import UnifiedCache

// The BFF's view of the bank fixture: one REST request and two GraphQL operations. Names follow the library's
// built-in domain map (`accountSummary.` keys; the balance fields are the balances domain's schema coordinates), so
// the granular clears and the mutation invalidation find them.

/// One account as `GET /api/accounts` describes it.
struct AccountSummary: Codable, Sendable {
    var id: String
    var name: String
    var type: String
}

/// `GET /api/accounts`: the account list of the dashboard, cached 5 minutes per session.
struct AccountSummaryRequest: RequestType {
    typealias Response = [AccountSummary]
    var cachePolicy: RESTCachePolicy
    var path: String { "/api/accounts" }
    var cache: RequestCache? { RequestCache(key: "accountSummary.accounts", timeout: .seconds(300)) }
}

/// `query AccountBalances`: the balance of every account, normalized into `Account:<id>` records.
struct AccountBalancesQuery: GraphQLQuery, CacheableQuery {
    static let operationName = "AccountBalances"
    static let document = "query AccountBalances { accounts { id balance availableBalance } }"
    static let cacheTimeout: QueryCacheTimeout = .useDefault

    struct Data: Decodable, Sendable {
        var accounts: [Balance]
    }

    struct Balance: Codable, Sendable {
        var id: String
        var balance: Double
        var availableBalance: Double
    }
}

/// `mutation MakePayment`: its answer names `Account:<id>`, so the hub invalidates that account's REST entries and
/// balance fields, and the next dashboard fetches them again.
struct MakePaymentMutation: GraphQLMutation {
    static let operationName = "MakePayment"
    static let document = """
        mutation MakePayment($input: PaymentInput!) {
          makePayment(input: $input) { account { id balance availableBalance } transaction { id amount } }
        }
        """

    struct Data: Decodable, Sendable {
        var makePayment: Result

        struct Result: Decodable, Sendable {
            var account: AccountBalancesQuery.Balance
            var transaction: Transaction
        }

        struct Transaction: Decodable, Sendable {
            var id: String
            var amount: Double
        }
    }

    var input: PaymentInput
    var variables: GraphQLJSONObject {
        [
            "input": [
                "fromAccountId": .string(input.fromAccountId),
                "payeeId": .string(input.payeeId),
                "amount": .double(input.amount),
                "reference": input.reference.map(GraphQLJSON.string) ?? .null,
            ]
        ]
    }
}

/// The body of `POST /payments`, as the frontend sends it.
struct PaymentInput: Codable, Sendable {
    var fromAccountId: String
    var payeeId: String
    var amount: Double
    var reference: String?
}

/// `GET /dashboard`'s answer: each account with its balances.
struct Dashboard: ResponseEncodable {
    var user: String
    var accounts: [Account]

    struct Account: Encodable {
        var id: String
        var name: String
        var type: String
        var balance: Double?
        var availableBalance: Double?
    }

    /// The account list joined with the balances by account id.
    init(user: String, accounts: [AccountSummary], balances: [AccountBalancesQuery.Balance]) {
        let byID = Dictionary(balances.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
        self.user = user
        self.accounts = accounts.map { account in
            Account(
                id: account.id, name: account.name, type: account.type, balance: byID[account.id]?.balance,
                availableBalance: byID[account.id]?.availableBalance)
        }
    }
}

/// `POST /payments`' answer.
struct PaymentReceipt: ResponseEncodable {
    var transactionId: String
    var amount: Double
    var accountId: String
    var balance: Double
    var availableBalance: Double

    init(_ data: MakePaymentMutation.Data) {
        let payment = data.makePayment
        transactionId = payment.transaction.id
        amount = payment.transaction.amount
        accountId = payment.account.id
        balance = payment.account.balance
        availableBalance = payment.account.availableBalance
    }
}
