import CacheCore
import Foundation
import GraphQLCache
import Testing

@Suite("Normalized store: decoding into the caller's types")
struct StoreDecodingTests {
    struct AccountsData: Decodable, Equatable {
        var accounts: [Account]
    }

    struct Account: Decodable, Equatable {
        var id: String
        var name: String
        var balance: Decimal
        var nickname: String?
    }

    struct Transactions: Decodable, Equatable {
        enum Status: String, Decodable {
            case pending = "PENDING"
            case posted = "POSTED"
        }

        struct Transaction: Decodable, Equatable {
            var id: String
            var amount: Double
            var status: Status
            var cents: Int
            var receipt: URL?
        }

        var recent: [Transaction?]
    }

    private let transactions = """
        query T { recent: transactions(accountId: "101", first: 2) {
          __typename id amount status cents receipt nickname } }
        """
    private let transactionsData = """
        {"recent": [
          {"__typename": "Transaction", "id": "tx-1", "amount": -12.5, "status": "PENDING", "cents": -1250,
           "receipt": "https://bank.example/r/1", "nickname": null},
          null
        ]}
        """

    @Test("a read decodes straight into structs, enums, optionals, Decimal and URL")
    func decodesCallerTypes() throws {
        let store = try makeNormalizedStore()
        let operation = try prepare(transactions)
        try store.write(operation, json: transactionsData)
        let result = try store.read(Transactions.self, operation: operation, in: alice)
        let data = try #require(result.value)
        #expect(
            data.recent == [
                Transactions.Transaction(
                    id: "tx-1",
                    amount: -12.5,
                    status: .pending,
                    cents: -1250,
                    receipt: URL(string: "https://bank.example/r/1")
                ),
                nil,
            ]
        )

        let accounts = try prepare("{ accounts { __typename id name balance } }")
        try store.write(accounts, json: BankOperations.accountsData)
        let decoded = try #require(try store.read(AccountsData.self, operation: accounts, in: alice).value)
        #expect(decoded.accounts.map(\.balance) == [Decimal(2500), Decimal(10000)])
        #expect(decoded.accounts.allSatisfy { $0.nickname == nil })
    }

    @Test("decoding from the store gives what JSONDecoder gives from the response")
    func agreesWithJSONDecoder() throws {
        let store = try makeNormalizedStore()
        let operation = try prepare(transactions)
        try store.write(operation, json: transactionsData)
        let expected = try JSONDecoder().decode(Transactions.self, from: Data(transactionsData.utf8))
        #expect(try store.read(Transactions.self, operation: operation, in: alice).value == expected)
        #expect(try GraphQLJSON(parsing: transactionsData).decode(Transactions.self) == expected)
    }

    @Test("hit or miss is decided on the whole selection, not on what the type decodes")
    func missIsDecidedOnSelection() throws {
        struct OnlyIDs: Decodable {
            struct Item: Decodable { var id: String }
            var accounts: [Item]
        }
        let store = try makeNormalizedStore()
        try store.write(
            try prepare("{ accounts { __typename id } }"),
            json: #"{"accounts": [{"__typename": "Account", "id": "101"}]}"#
        )
        let result = try store.read(OnlyIDs.self, operation: try prepare(BankOperations.accounts), in: alice)
        #expect(result.missValue?.path == "accounts.0.name")
    }

    @Test("a type asking for a member the operation does not select fails with decodingFailed and its path")
    func memberOutsideSelection() throws {
        struct WantsType: Decodable {
            struct Item: Decodable {
                var id: String
                var type: String
            }
            var accounts: [Item]
        }
        let store = try makeNormalizedStore()
        let operation = try prepare(BankOperations.accounts)
        try store.write(operation, json: BankOperations.accountsData)
        // `type` is cached for Account:101 by another query, but this operation does not select it.
        try store.write(try prepare(BankOperations.details), variables: ["id": "101"], json: BankOperations.detailsData)
        let error = try #require(throws: GraphQLCacheError.self) {
            try store.read(WantsType.self, operation: operation, in: alice)
        }
        #expect(error.code == .decodingFailed)
        #expect(error.path == "accounts.0.type")
        #expect(error.underlying is DecodingError)
    }

    @Test("a member of another type fails with decodingFailed, never a value in the message")
    func typeMismatch() throws {
        struct WrongType: Decodable {
            struct Item: Decodable { var name: Int }
            var accounts: [Item]
        }
        let store = try makeNormalizedStore()
        let operation = try prepare(BankOperations.accounts)
        try store.write(operation, json: BankOperations.accountsData)
        let error = try #require(throws: GraphQLCacheError.self) {
            try store.read(WrongType.self, operation: operation, in: alice)
        }
        #expect(error.code == .decodingFailed)
        #expect(error.path == "accounts.0.name")
        #expect(!error.description.contains("Everyday"))
    }

    @Test("custom JSON scalars decode as GraphQLJSON, and integers must fit exactly")
    func jsonScalarsAndIntegers() throws {
        struct Settings: Decodable {
            var settings: GraphQLJSON
            var small: Int8
        }
        let store = try makeNormalizedStore()
        let operation = try prepare("{ settings small }")
        try store.write(operation, json: #"{"settings": {"theme": "dark"}, "small": 12}"#)
        let data = try #require(try store.read(Settings.self, operation: operation, in: alice).value)
        #expect(data.settings == ["theme": "dark"])
        #expect(data.small == 12)

        try store.write(operation, json: #"{"settings": null, "small": 300}"#)
        let error = try #require(throws: GraphQLCacheError.self) {
            try store.read(Settings.self, operation: operation, in: alice)
        }
        #expect(error.code == .decodingFailed)
        #expect(error.path == "small")
    }
}
