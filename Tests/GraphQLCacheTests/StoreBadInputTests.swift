import CacheCore
import GraphQLCache
import Testing

@Suite("Normalized store: responses that do not fit are refused and change nothing")
struct StoreBadInputTests {
    /// A store holding the accounts list, and a snapshot of it.
    private func filledStore(keyed: Bool = true) throws -> (GraphQLNormalizedStore, [GraphQLRecord]) {
        let store = try makeNormalizedStore(keyed: keyed)
        try store.write(try prepare(BankOperations.accounts), json: BankOperations.accountsData)
        return (store, store.records(in: alice))
    }

    /// Writes `data` for `source`, requiring a typed error, and checks that the store did not change.
    private func refusal(
        _ source: String,
        _ data: String,
        variables: GraphQLJSONObject = [:],
        keyed: Bool = true
    ) throws -> GraphQLCacheError {
        let (store, before) = try filledStore(keyed: keyed)
        let operation = try prepare(source)
        let error = try #require(throws: GraphQLCacheError.self) {
            try store.write(operation, variables: variables, data: try jsonObject(data), in: alice)
        }
        #expect(store.records(in: alice) == before)
        #expect(store.statistics(for: alice).inserts == before.count)
        return error
    }

    @Test("a selected field missing deep in a list: responseMismatch with its path; earlier objects not written")
    func missingField() throws {
        let error = try refusal(
            BankOperations.accounts,
            """
            {"accounts": [{"__typename": "Account", "id": "101", "name": "Changed", "balance": 1},
                          {"__typename": "Account", "id": "102", "name": "Goal Saver"}]}
            """
        )
        #expect(error.code == .responseMismatch)
        #expect(error.path == "accounts.1.balance")
        #expect(error.description.hasPrefix("at accounts.1.balance:"))
    }

    @Test("a string where objects are selected: responseMismatch")
    func scalarForObject() throws {
        let error = try refusal(BankOperations.balance, #"{"account": "101"}"#, variables: ["id": "101"])
        #expect(error.code == .responseMismatch)
        #expect(error.path == "account")
    }

    @Test("a number inside a list of objects: responseMismatch at the element")
    func scalarInList() throws {
        let error = try refusal(
            BankOperations.accounts,
            #"{"accounts": [{"__typename": "Account", "id": "9", "name": "n", "balance": 1}, 42]}"#
        )
        #expect(error.code == .responseMismatch)
        #expect(error.path == "accounts.1")
    }

    @Test("with key providers, an object without __typename: missingTypename")
    func missingTypenameForKeys() throws {
        let error = try refusal(
            "{ accounts { id name balance } }", #"{"accounts": [{"id": "1", "name": "n", "balance": 1}]}"#)
        #expect(error.code == .missingTypename)
        #expect(error.path == "accounts.0")
    }

    @Test("a fragment's type condition on an object without __typename: missingTypename")
    func missingTypenameForFragment() throws {
        let error = try refusal(
            "{ node(id: \"1\") { ... on Account { balance } } }",
            #"{"node": {"balance": 1}}"#,
            keyed: false
        )
        #expect(error.code == .missingTypename)
        #expect(error.path == "node")
    }

    @Test("a __typename that is not a string: responseMismatch")
    func typenameNotString() throws {
        let error = try refusal(BankOperations.balance, #"{"account": {"__typename": 7, "id": "1", "balance": 1}}"#)
        #expect(error.code == .responseMismatch)
        #expect(error.path == "account.__typename")
    }

    @Test("a key provider returning an empty or root key: invalidCacheKey")
    func invalidKeys() throws {
        for bad in ["", "QUERY_ROOT"] {
            var configuration = GraphQLCacheConfiguration()
            configuration.registerCacheKeyProvider(ClosureCacheKeyProvider { _, _ in bad })
            let store = try GraphQLNormalizedStore(cacheConfiguration: configuration)
            let error = try #require(throws: GraphQLCacheError.self) {
                try store.write(
                    try prepare(BankOperations.balance),
                    variables: ["id": "1"],
                    data: try jsonObject(#"{"account": {"__typename": "Account", "id": "1", "balance": 1}}"#),
                    in: alice
                )
            }
            #expect(error.code == .invalidCacheKey)
            #expect(store.recordCount(in: alice) == 0)
        }
    }

    @Test("@include without a boolean variable: invalidVariables")
    func includeWithoutVariable() throws {
        let error = try refusal(
            "query Q($show: Boolean) { accounts @include(if: $show) { __typename id } }",
            #"{"accounts": []}"#
        )
        #expect(error.code == .invalidVariables)
    }

    @Test("error descriptions name places, never values of the response")
    func descriptionsHideValues() throws {
        let error = try refusal(
            BankOperations.accounts,
            #"{"accounts": [{"__typename": "Account", "id": "secret-id-123", "name": "secret-name"}]}"#
        )
        #expect(!error.description.contains("secret"))
        #expect(!error.message.contains("secret"))
    }

    @Test("type-specific providers come before general ones, and nil falls back to the path")
    func providerOrder() throws {
        var configuration = GraphQLCacheConfiguration()
        configuration.registerCacheKeyProvider(TypenameIDKeyProvider())
        configuration.registerCacheKeyProvider(
            ClosureCacheKeyProvider { _, object in object["accountToken"]?.stringValue.map { "Token:" + $0 } },
            forTypenames: ["Account"]
        )
        configuration.registerCacheKeyProvider(ClosureCacheKeyProvider { _, _ in nil }, forTypenames: ["Payee"])
        let store = try GraphQLNormalizedStore(cacheConfiguration: configuration)
        try store.write(
            try prepare("{ accounts { __typename id accountToken } payees { __typename name } }"),
            json: """
                {"accounts": [{"__typename": "Account", "id": "101", "accountToken": "atok-101"},
                              {"__typename": "Account", "id": "102", "accountToken": null}],
                 "payees": [{"__typename": "Payee", "name": "Electricity Co"}]}
                """
        )
        #expect(store.recordKeys() == ["Account:102", "QUERY_ROOT", "QUERY_ROOT.payees.0", "Token:atok-101"])
    }
}
