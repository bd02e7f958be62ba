import CacheCore
import GraphQLCache
import Testing

/// A typed read checks the selection while it decodes, each record once; whatever the decode meets or skips, an
/// incomplete selection is a miss at the same path as the full check's, never a partial value.
@Suite("Normalized store: a typed read checks the selection while it decodes")
struct StoreDecodingCheckTests {
    struct Accounts: Decodable, Equatable {
        struct Transaction: Decodable, Equatable {
            var id: String
            var amount: Double
        }

        struct Account: Decodable, Equatable {
            var id: String
            var name: String
            var transactions: [Transaction]
        }

        var accounts: [Account]
    }

    /// Decodes accounts without their transactions, which the operation selects all the same.
    struct AccountIDs: Decodable, Equatable {
        struct Account: Decodable, Equatable {
            var id: String
        }

        var accounts: [Account]
    }

    /// Swallows any error decoding an account's transactions.
    struct Forgiving: Decodable {
        struct Account: Decodable {
            enum CodingKeys: String, CodingKey {
                case id
                case transactions
            }

            var id: String
            var transactions: [Accounts.Transaction]

            init(from decoder: any Decoder) throws {
                let container = try decoder.container(keyedBy: CodingKeys.self)
                id = try container.decode(String.self, forKey: .id)
                transactions = (try? container.decode([Accounts.Transaction].self, forKey: .transactions)) ?? []
            }
        }

        var accounts: [Account]
    }

    private let query = """
        query A { accounts { __typename id name transactions { __typename id amount } } }
        """
    private let data = """
        {"accounts": [
          {"__typename": "Account", "id": "1", "name": "Everyday", "transactions": [
            {"__typename": "Transaction", "id": "t1", "amount": 1.5},
            {"__typename": "Transaction", "id": "t2", "amount": -2}]},
          {"__typename": "Account", "id": "2", "name": "Savings", "transactions": [
            {"__typename": "Transaction", "id": "t3", "amount": 3},
            {"__typename": "Transaction", "id": "t4", "amount": 4.25}]}
        ]}
        """

    private func filledStore() throws -> (GraphQLNormalizedStore, GraphQLPreparedOperation) {
        let store = try makeNormalizedStore()
        let operation = try prepare(query)
        try store.write(operation, json: data)
        return (store, operation)
    }

    @Test("a field missing deep in a list is a miss at its path; the store is left as it was and a write heals it")
    func fieldMissingDeepInList() throws {
        let (store, operation) = try filledStore()
        store.removeSelected(
            records: { _, _ in false }, fields: { record, field in record == "Transaction:t4" && field == "amount" },
            in: alice)
        let before = store.recordKeys()
        let result = try store.read(Accounts.self, operation: operation, in: alice)
        let miss = try #require(result.missValue)
        #expect(result.value == nil)
        #expect(miss.path == "accounts.1.transactions.1.amount")
        #expect(miss.reason == .missingField)
        #expect(try store.miss(operation).path == miss.path)
        #expect(store.recordKeys() == before)
        #expect(store.fieldNames("Transaction:t4") == ["id"])

        try store.write(operation, json: data)
        let healed = try #require(try store.read(Accounts.self, operation: operation, in: alice).value)
        #expect(healed.accounts.map(\.id) == ["1", "2"])
        #expect(healed.accounts[1].transactions.map(\.amount) == [3, 4.25])
    }

    @Test("a listed record that is gone is a miss naming it, even when the type's init(from:) swallows the error")
    func goneRecordUnderForgivingType() throws {
        let (store, operation) = try filledStore()
        store.removeSelected(
            records: { key, _ in key == "Transaction:t3" }, fields: { _, _ in false },
            removingDanglingReferences: false,
            in: alice)
        let result = try store.read(Forgiving.self, operation: operation, in: alice)
        let miss = try #require(result.missValue)
        #expect(result.value == nil)
        #expect(miss.path == "accounts.1.transactions.0")
        #expect(miss.reason == .missingRecord("Transaction:t3"))
    }

    @Test("what the type does not decode is checked after the decode: a skipped list with a gone record is a miss")
    func undecodedMembersAreChecked() throws {
        let (store, operation) = try filledStore()
        let complete = try #require(try store.read(AccountIDs.self, operation: operation, in: alice).value)
        #expect(complete.accounts.map(\.id) == ["1", "2"])

        store.removeSelected(
            records: { key, _ in key == "Transaction:t2" }, fields: { _, _ in false },
            removingDanglingReferences: false,
            in: alice)
        let miss = try #require(try store.read(AccountIDs.self, operation: operation, in: alice).missValue)
        #expect(miss.path == "accounts.0.transactions.1")
        #expect(miss.reason == .missingRecord("Transaction:t2"))
    }

    @Test("a member of another type before a missing field is a miss, not decodingFailed: the selection comes first")
    func missBeforeDecodingError() throws {
        struct WrongName: Decodable {
            struct Account: Decodable {
                var name: Int
            }

            var accounts: [Account]
        }
        let (store, operation) = try filledStore()
        store.removeSelected(
            records: { _, _ in false }, fields: { record, field in record == "Account:2" && field == "name" },
            in: alice)
        let miss = try #require(try store.read(WrongName.self, operation: operation, in: alice).missValue)
        #expect(miss.path == "accounts.1.name")

        try store.write(operation, json: data)
        let error = try #require(throws: GraphQLCacheError.self) {
            try store.read(WrongName.self, operation: operation, in: alice)
        }
        #expect(error.code == .decodingFailed)
        #expect(error.path == "accounts.0.name")
    }
}
