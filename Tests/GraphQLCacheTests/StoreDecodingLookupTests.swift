import CacheCore
import Foundation
import GraphQLLanguage
import Testing

@testable import GraphQLCache

/// The shortcuts of a typed read (members looked up by the position after the last one, a skipped `__typename`,
/// leaves read in place, write times noted per record) and what they fall back to.
@Suite("Normalized store: member lookups of a typed read and their fallbacks")
struct StoreDecodingLookupTests {
    /// Members declared in another order than selected, `__typename` not decoded.
    struct Reordered: Decodable, Equatable {
        struct Account: Decodable, Equatable {
            var balance: Double
            var id: String
            var name: String
        }

        var accounts: [Account]
    }

    /// Members in selection order after a `__typename` the type does not decode.
    struct InOrder: Decodable, Equatable {
        struct Account: Decodable, Equatable {
            var id: String
            var name: String
            var balance: Double
        }

        var accounts: [Account]
    }

    private let query = "query A { accounts { __typename id name balance } }"
    private let data = """
        {"accounts": [
          {"__typename": "Account", "id": "1", "name": "Everyday", "balance": 10.5},
          {"__typename": "Account", "id": "2", "name": "Savings", "balance": 20}
        ]}
        """

    @Test("members after a skipped __typename and members out of selection order decode alike")
    func memberOrders() throws {
        let store = try makeNormalizedStore()
        let operation = try prepare(query)
        try store.write(operation, json: data)
        let inOrder = try #require(try store.read(InOrder.self, operation: operation, in: alice).value)
        let reordered = try #require(try store.read(Reordered.self, operation: operation, in: alice).value)
        #expect(inOrder.accounts.map(\.id) == ["1", "2"])
        #expect(inOrder.accounts.map(\.balance) == [10.5, 20])
        #expect(reordered.accounts.map(\.name) == ["Everyday", "Savings"])
        #expect(reordered.accounts.map(\.balance) == inOrder.accounts.map(\.balance))
    }

    @Test("a field one record lacks makes the typed read a miss at its path, whatever the type decodes")
    func missingFieldIsMiss() throws {
        let store = try makeNormalizedStore()
        let operation = try prepare(query)
        try store.write(operation, json: data)
        // The list now leads to account 3, written without `name`.
        try store.write(
            try prepare("query B { accounts { __typename id balance } }"),
            json: #"{"accounts": [{"__typename": "Account", "id": "3", "balance": 1}]}"#)
        let wider = try prepare("query C { accounts { __typename id name balance } }")
        let result = try store.read(InOrder.self, operation: wider, in: alice)
        let miss = try #require(result.missValue)
        #expect(miss.path == "accounts.0.name")
        #expect(miss.reason == .missingField)
    }

    @Test("a leaf of another type is decodingFailed with its path; a list where a leaf is selected is a miss")
    func wrongTypes() throws {
        let store = try makeNormalizedStore()
        let operation = try prepare(query)
        try store.write(
            operation,
            json: #"{"accounts": [{"__typename": "Account", "id": "1", "name": "Everyday", "balance": "lots"}]}"#)
        #expect {
            _ = try store.read(InOrder.self, operation: operation, in: alice)
        } throws: { error in
            let error = error as? GraphQLCacheError
            return error?.code == .decodingFailed && error?.path == "accounts.0.balance"
        }
        let nested = try prepare("query N { accounts { __typename id name balance owner { __typename id } } }")
        try store.write(
            nested,
            json: """
                {"accounts": [{"__typename": "Account", "id": "1", "name": "Everyday", "balance": 1,
                  "owner": {"__typename": "User", "id": "u1"}}]}
                """)
        let leafOnly = try prepare("query L { accounts { __typename id name balance owner } }")
        let miss = try #require(try store.read(InOrder.self, operation: leafOnly, in: alice).missValue)
        #expect(miss.path == "accounts.0.owner")
        #expect(miss.reason == .unexpectedValue)
    }

    @Test("the oldest write of a typed read is the oldest field's, across records of one type")
    func oldestWriteAcrossRecords() throws {
        let clock = ManualCacheClock()
        let store = try makeNormalizedStore(clock: clock)
        let operation = try prepare(query)
        try store.write(operation, json: data)
        let first = clock.now()
        clock.advance(by: .seconds(30))
        try store.write(
            try prepare("query B { accounts { __typename id balance } }"),
            json: #"{"accounts": [{"__typename": "Account", "id": "1", "balance": 11}]}"#)
        guard case .hit(let hit) = try store.read(InOrder.self, operation: operation, in: alice) else {
            Issue.record("expected a hit")
            return
        }
        #expect(hit.oldestWrite == first)
        #expect(hit.oldestWriteByTypename["Account"] == first)
        #expect(hit.data.accounts.map(\.balance) == [11])
    }

    @Test("a document's query key is reused only for variables written alike to the byte")
    func queryKeyReuse() throws {
        let document = try GraphQLDocumentCache().prepared(
            "query Q($name: String, $n: Float) { search(name: $name, n: $n) { id } }", operationName: nil,
            addingTypenames: false)
        let sequence: [GraphQLJSONObject] = [
            ["name": "caf\u{E9}"], ["name": "caf\u{E9}"], ["name": "cafe\u{301}"], ["n": .double(0)],
            ["n": .double(-0.0)], ["n": .double(-0.0)], ["n": .int(1)], ["n": .double(1)],
            ["name": "a", "n": .int(2)], ["n": .int(2), "name": "a"], [:], [:],
            // Same length, one byte apart: short strings, and strings past the small-string size.
            ["name": "cafe"], ["name": "cafa"], ["name": "a-longer-name-of-thirty-bytes-1"],
            ["name": "a-longer-name-of-thirty-bytes-2"], ["name": "a-longer-name-of-thirty-bytes-2"],
        ]
        for variables in sequence {
            #expect(document.queryKey(for: variables) == GraphQLQueryKey(operationName: "Q", variables: variables))
        }
        // Canonically equivalent texts are equal `String`s: the keys differ in their bytes.
        #expect(
            Array(document.queryKey(for: ["name": "caf\u{E9}"]).canonicalVariables.utf8)
                != Array(document.queryKey(for: ["name": "cafe\u{301}"]).canonicalVariables.utf8))
    }
}
