import CacheCore
import CurlHTTP
import FixtureSupport
import Foundation
import GraphQLCache
import Testing

/// A fixture tenant, one store on a manual clock and one HTTP client: what a BFF holds; clients per session.
struct ClientHarness {
    let tenant: FixtureTenant
    let clock = ManualCacheClock()
    let events = StoreEventRecorder()
    let store: GraphQLNormalizedStore
    let transport: CurlHTTPClient
    let documents = GraphQLDocumentCache()

    /// - Parameter keyed: register the `__typename:id` key provider (normalized caching); without it objects
    ///   are stored under their paths (the seeds' query-based caching).
    /// - Parameter transportConfiguration: tests that need two requests to the fixture at once pass
    ///   `enableHTTP2: false` (with it, libcurl waits for the busy HTTP/1.1 connection instead of opening another).
    init(
        _ label: String,
        keyed: Bool = true,
        transportConfiguration: CurlHTTPClient.Configuration = .init()
    ) async throws {
        tenant = try await FixtureServer.tenant(label)
        store = try makeNormalizedStore(keyed: keyed, clock: clock, observer: events)
        transport = try CurlHTTPClient(configuration: transportConfiguration)
    }

    /// A session's client; the session id defaults to the user's name.
    func client(
        _ user: FixtureTenant.User = .alice,
        session: String? = nil,
        configuration: GraphQLClient.Configuration = GraphQLClient.Configuration(),
        cacheConfig: GraphQLCacheConfig = GraphQLCacheConfig()
    ) throws -> GraphQLClient {
        try GraphQLClient(
            url: tenant.graphqlURL,
            transport: transport,
            store: store,
            scope: .session(session ?? user.rawValue),
            credentials: .bearer(user.token),
            configuration: configuration,
            cacheConfig: cacheConfig,
            documents: documents
        )
    }

    /// Upstream requests the fixture has seen for an operation name.
    func count(_ operation: String) async throws -> Int {
        try await tenant.counters().operation(operation)
    }

    /// Makes the next matching request answer `status` with `body` (a JSON value), whatever the route does.
    func injectAnswer(status: Int, body: String, operation: String) async throws {
        let rule =
            #"{"operation":"\#(operation)","count":1,"fault":{"type":"status","status":\#(status),"body":\#(body)}}"#
        let request = CurlHTTPClient.Request(
            method: .post,
            url: tenant.url("/__control/faults"),
            headers: ["Content-Type": "application/json"],
            body: Data(rule.utf8)
        )
        let response = try await tenant.server.controlClient.execute(request)
        guard response.isSuccess else {
            throw StoreTestFailure("the fault rule was refused with \(response.status)")
        }
    }

    /// The names of the upstream calls the store recorded, in order.
    var networkCalls: [String] {
        events.events.compactMap { event in
            if case .networkCall(_, let key, _, _) = event {
                return key
            }
            return nil
        }
    }
}

extension Result {
    /// The success value, or the failure thrown, for `try` in tests.
    func value() throws -> Success {
        try get()
    }

    /// The failure, when there is one.
    var failure: Failure? {
        if case .failure(let error) = self {
            return error
        }
        return nil
    }
}

// MARK: - Typed operations on the fixture bank

struct AccountSummaryQuery: GraphQLQuery {
    static let document = "query AccountSummary { accounts { id name balance } }"
    static let operationName = "AccountSummary"

    struct Data: Decodable, Sendable, Equatable {
        var accounts: [Account]
    }

    struct Account: Decodable, Sendable, Equatable {
        var id: String
        var name: String
        var balance: Double
    }
}

struct AccountBalanceQuery: GraphQLQuery {
    static let document = "query AccountBalance($id: ID!) { account(id: $id) { id balance availableBalance } }"
    static let operationName = "AccountBalance"
    let id: String

    var variables: GraphQLJSONObject {
        ["id": .string(id)]
    }

    struct Data: Decodable, Sendable, Equatable {
        var account: Account?
    }

    struct Account: Decodable, Sendable, Equatable {
        var id: String
        var balance: Double
        var availableBalance: Double
    }
}

/// The balance query with its own freshness (the seed's `CacheableQuery` example).
struct CacheableBalanceQuery: GraphQLQuery, CacheableQuery {
    static let document = "query CacheableBalance($id: ID!) { account(id: $id) { id balance } }"
    static let operationName = "CacheableBalance"
    static let cacheTimeout: QueryCacheTimeout = 30
    let id: String

    var variables: GraphQLJSONObject {
        ["id": .string(id)]
    }

    struct Data: Decodable, Sendable, Equatable {
        var account: Account?
    }

    struct Account: Decodable, Sendable, Equatable {
        var id: String
        var balance: Double
    }
}

struct RecentTransactionsQuery: GraphQLQuery {
    static let document = """
        query RecentTransactions($accountId: ID!, $first: Int = 3) {
          transactions(accountId: $accountId, first: $first) { id amount description }
        }
        """
    static let operationName = "RecentTransactions"
    let accountId: String

    var variables: GraphQLJSONObject {
        ["accountId": .string(accountId)]
    }

    struct Data: Decodable, Sendable, Equatable {
        var transactions: [Transaction]
    }

    struct Transaction: Decodable, Sendable, Equatable {
        var id: String
        var amount: Double
        var description: String
    }
}

struct ProfileQuery: GraphQLQuery {
    static let document = "query Profile { profile { id displayName email } }"
    static let operationName = "Profile"

    struct Data: Decodable, Sendable, Equatable {
        var profile: Profile
    }

    struct Profile: Decodable, Sendable, Equatable {
        var id: String
        var displayName: String
        var email: String
    }
}

struct FlakyQuery: GraphQLQuery {
    static let document = "query Flaky { profile { id displayName } flaky }"
    static let operationName = "Flaky"

    struct Data: Decodable, Sendable {
        var flaky: String?
    }
}

struct MakePaymentMutation: GraphQLMutation {
    static let document = """
        mutation MakePayment($input: PaymentInput!) {
          makePayment(input: $input) {
            account { id balance availableBalance }
            transaction { id amount description }
          }
        }
        """
    static let operationName = "MakePayment"
    let fromAccountId: String
    let amount: Double

    var variables: GraphQLJSONObject {
        [
            "input": [
                "fromAccountId": .string(fromAccountId), "payeeId": "payee-alice-1", "amount": .double(amount),
                "reference": "test",
            ]
        ]
    }

    struct Data: Decodable, Sendable, Equatable {
        var makePayment: Payment
    }

    struct Payment: Decodable, Sendable, Equatable {
        var account: AccountBalanceQuery.Account
        var transaction: RecentTransactionsQuery.Transaction
    }
}
