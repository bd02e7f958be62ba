import CacheCore
import GraphQLCache
import Testing

@Suite("Normalized store: how responses become records")
struct StoreNormalizationTests {
    private let id101: GraphQLJSONObject = ["id": "101"]

    // MARK: - The seed's examples

    @Test("with key providers, the same account fetched by two queries is stored once")
    func keyedAccountIsStoredOnce() throws {
        let store = try makeNormalizedStore()
        try store.write(try prepare(BankOperations.balance), variables: id101, json: BankOperations.balanceData)
        try store.write(try prepare(BankOperations.accounts), json: BankOperations.accountsData)

        #expect(store.recordKeys() == ["Account:101", "Account:102", "QUERY_ROOT"])
        let account = try #require(store.record("Account:101", in: alice))
        #expect(account.typename == "Account")
        #expect(Set(account.fields.keys) == ["id", "balance", "name"])
        let root = try #require(store.record(GraphQLRecord.queryRootKey, in: alice))
        #expect(root.fields[#"account({"id":"101"})"#]?.value == .reference("Account:101"))
        #expect(root.fields["accounts"]?.value == .list([.reference("Account:101"), .reference("Account:102")]))
    }

    @Test("without key providers, the same account fetched by two queries is stored twice, under its paths")
    func unkeyedAccountIsStoredTwice() throws {
        let store = try makeNormalizedStore(keyed: false)
        try store.write(try prepare(BankOperations.balance), variables: id101, json: BankOperations.balanceData)
        try store.write(try prepare(BankOperations.accounts), json: BankOperations.accountsData)

        let balanceCopy = #"QUERY_ROOT.account({"id":"101"})"#
        #expect(store.recordKeys() == ["QUERY_ROOT", balanceCopy, "QUERY_ROOT.accounts.0", "QUERY_ROOT.accounts.1"])
        #expect(store.record(balanceCopy, in: alice)?.fields["balance"]?.value == .scalar(2500.0))
        #expect(store.record("QUERY_ROOT.accounts.0", in: alice)?.fields["balance"]?.value == .scalar(2500.0))
    }

    @Test("a mutation result updating Account:101 is seen by every query reading it")
    func mutationUpdatesEveryQuery() throws {
        let store = try makeNormalizedStore()
        let balance = try prepare(BankOperations.balance)
        let accounts = try prepare(BankOperations.accounts)
        try store.write(balance, variables: id101, json: BankOperations.balanceData)
        try store.write(accounts, json: BankOperations.accountsData)

        let input: GraphQLJSONObject = ["input": ["fromAccountId": "101", "payeeId": "payee-alice-1", "amount": 100]]
        let changes = try store.write(
            try prepare(BankOperations.payment), variables: input, json: BankOperations.paymentData)

        #expect(changes.changedFieldKeys.contains("Account:101.balance"))
        #expect(changes.changedRecordKeys.contains("Transaction:tx-101-26"))
        #expect(try store.hitData(balance, variables: id101)["account"]?["balance"] == 2400.0)
        let list = try store.hitData(accounts)["accounts"]?.arrayValue ?? []
        #expect(list.map { $0["balance"] } == [2400.0, 10000.0])
    }

    @Test("without keys, a mutation does not reach the queries (the seeds' query-based problem)")
    func unkeyedMutationDoesNotPropagate() throws {
        let store = try makeNormalizedStore(keyed: false)
        let balance = try prepare(BankOperations.balance)
        try store.write(balance, variables: id101, json: BankOperations.balanceData)
        let input: GraphQLJSONObject = ["input": ["fromAccountId": "101", "payeeId": "payee-alice-1", "amount": 100]]
        try store.write(try prepare(BankOperations.payment), variables: input, json: BankOperations.paymentData)

        #expect(try store.hitData(balance, variables: id101)["account"]?["balance"] == 2500.0)
        #expect(
            store.recordKeys().contains(
                "MUTATION_ROOT.makePayment({\"input\":{\"amount\":100,\"fromAccountId\":\"101\",\"payeeId\":\"payee-alice-1\"}}).account"
            ))
    }

    // MARK: - Selections

    @Test("aliases are stored under field names and restored on read")
    func aliases() throws {
        let store = try makeNormalizedStore()
        let aliased = try prepare(
            #"{ main: account(id: "101") { __typename id money: balance } saver: account(id: "102") { __typename id money: balance } }"#
        )
        try store.write(
            aliased,
            json: """
                {"main": {"__typename": "Account", "id": "101", "money": 2500},
                 "saver": {"__typename": "Account", "id": "102", "money": 10000}}
                """
        )

        #expect(store.record("Account:101", in: alice)?.fields["balance"]?.value == .scalar(2500))
        let data = try store.hitData(aliased)
        #expect(data.keys == ["main", "saver"])
        #expect(data["saver"] == ["__typename": "Account", "id": "102", "money": 10000])
        // The same field without alias reads what the aliased query wrote.
        let plain = try store.hitData(try prepare(BankOperations.balance), variables: ["id": "102"])
        #expect(plain["account"]?["balance"] == 10000)
    }

    @Test("arguments are resolved from variables and their order does not matter")
    func argumentsWithVariables() throws {
        let store = try makeNormalizedStore()
        let byVariables = try prepare(
            """
            query Recent($account: ID!, $count: Int = 2) {
              transactions(accountId: $account, first: $count) { __typename id amount }
            }
            """
        )
        try store.write(
            byVariables,
            variables: ["account": "101"],
            json: """
                {"transactions": [{"__typename": "Transaction", "id": "tx-101-1", "amount": -5},
                                  {"__typename": "Transaction", "id": "tx-101-2", "amount": 7}]}
                """
        )

        let root = try #require(store.record(GraphQLRecord.queryRootKey, in: alice))
        #expect(root.fields.keys.sorted() == [#"transactions({"accountId":"101","first":2})"#])
        let literal = try prepare(#"{ transactions(first: 2, accountId: "101") { __typename id amount } }"#)
        let data = try store.hitData(literal)
        #expect(data["transactions"]?.arrayValue?.count == 2)
        // A count sent as 2.0 is the same argument as 2.
        #expect(try store.hitData(byVariables, variables: ["account": "101", "count": 2.0])["transactions"] != nil)
        // Another variable value is another storage key: a miss.
        let other = try store.miss(byVariables, variables: ["account": "102"])
        #expect(other.path == "transactions")
    }

    @Test("an argument whose variable is not provided is absent from the storage key")
    func absentVariableArgument() throws {
        let store = try makeNormalizedStore()
        let operation = try prepare(
            "query T($after: String) { transactions(accountId: \"101\", after: $after) { __typename id } }"
        )
        try store.write(operation, json: #"{"transactions": []}"#)
        let root = try #require(store.record(GraphQLRecord.queryRootKey, in: alice))
        #expect(root.fields.keys.sorted() == [#"transactions({"accountId":"101"})"#])
    }

    @Test("nested lists of objects keep their shape; unkeyed elements get index paths")
    func nestedLists() throws {
        let store = try makeNormalizedStore(keyed: false)
        let operation = try prepare("{ grid { label cells { value } } }")
        let data = """
            {"grid": [[{"label": "a", "cells": [{"value": 1}]}, null], [], [{"label": "b", "cells": []}]]}
            """
        try store.write(operation, json: data)

        let root = try #require(store.record(GraphQLRecord.queryRootKey, in: alice))
        #expect(
            root.fields["grid"]?.value
                == .list([
                    .list([.reference("QUERY_ROOT.grid.0.0"), .scalar(.null)]), .list([]),
                    .list([.reference("QUERY_ROOT.grid.2.0")]),
                ])
        )
        #expect(
            store.record("QUERY_ROOT.grid.0.0", in: alice)?.fields["cells"]?.value
                == .list([.reference("QUERY_ROOT.grid.0.0.cells.0")]))
        #expect(try store.hitData(operation) == jsonObject(data))
    }

    @Test("lists of scalars and custom JSON scalars are stored as leaf values")
    func scalarLists() throws {
        let store = try makeNormalizedStore()
        let operation = try prepare("{ tags settings }")
        try store.write(operation, json: #"{"tags": ["a", "b"], "settings": {"theme": "dark", "sizes": [1, 2]}}"#)
        let root = try #require(store.record(GraphQLRecord.queryRootKey, in: alice))
        #expect(root.fields["tags"]?.value == .scalar(["a", "b"]))
        #expect(try store.hitData(operation)["settings"]?["theme"] == "dark")
    }

    // MARK: - Fragments

    @Test("union fragments apply by __typename, with possibleTypes for the union")
    func unionFragments() throws {
        let store = try makeNormalizedStore()
        let operation = try prepare(
            """
            query Search($term: String!) {
              search(term: $term) {
                __typename
                ... on Account { id name }
                ... on Payee { id name bsb }
                ...Searchable
              }
            }
            fragment Searchable on SearchResult { __typename }
            """
        )
        let data = """
            {"search": [{"__typename": "Account", "id": "101", "name": "Everyday Account"},
                        {"__typename": "Payee", "id": "payee-alice-1", "name": "Electricity Co", "bsb": "062-000"}]}
            """
        try store.write(operation, variables: ["term": "e"], json: data)

        #expect(store.fieldNames("Payee:payee-alice-1") == ["id", "name", "bsb"])
        #expect(store.fieldNames("Account:101") == ["id", "name"])
        #expect(try store.hitData(operation, variables: ["term": "e"]) == jsonObject(data))
    }

    @Test("interface fragments apply to the concrete types listed in possibleTypes, and only then")
    func interfaceFragments() throws {
        let operation = try prepare(
            """
            query N { node(id: "101") { __typename ...NodeId ... on Account { balance } } }
            fragment NodeId on Node { id }
            """
        )
        let data = #"{"node": {"__typename": "Account", "id": "101", "balance": 2500}}"#
        let store = try makeNormalizedStore()
        try store.write(operation, json: data)
        #expect(store.record("Account:101", in: alice)?.fields["id"]?.value == .scalar("101"))
        #expect(try store.hitData(operation) == jsonObject(data))

        // Without possibleTypes the fragment on Node does not apply to an Account: `id` is not stored.
        let unaware = try makeNormalizedStore(keyed: false, possibleTypes: [:])
        try unaware.write(operation, json: data)
        #expect(unaware.record(#"QUERY_ROOT.node({"id":"101"})"#, in: alice)?.fields["id"] == nil)
    }

    @Test("@include and @skip follow the variables, on fields and fragments")
    func includeAndSkip() throws {
        let store = try makeNormalizedStore()
        let operation = try prepare(
            """
            query A($withName: Boolean!, $skipBalance: Boolean = false) {
              account(id: "101") {
                __typename id
                name @include(if: $withName)
                balance @skip(if: $skipBalance)
                ... on Account @include(if: false) { type }
              }
            }
            """
        )
        try store.write(
            operation,
            variables: ["withName": false],
            json: #"{"account": {"__typename": "Account", "id": "101", "balance": 1}}"#
        )
        #expect(store.fieldNames("Account:101") == ["id", "balance"])
        #expect(
            try store.hitData(operation, variables: ["withName": false, "skipBalance": true])["account"]
                == ["__typename": "Account", "id": "101"])
        let miss = try store.miss(operation, variables: ["withName": true])
        #expect(miss.path == "account.name")
        #expect(miss.reason == .missingField)
    }

    // MARK: - Changes

    @Test("rewriting the same values changes nothing but renews the write time")
    func unchangedRewrite() throws {
        let clock = ManualCacheClock()
        let store = try makeNormalizedStore(clock: clock)
        let balance = try prepare(BankOperations.balance)
        let first = try store.write(balance, variables: id101, json: BankOperations.balanceData)
        #expect(
            first.changedFieldKeys == ["Account:101.id", "Account:101.balance", #"QUERY_ROOT.account({"id":"101"})"#])
        #expect(first.recordsCreated == 2)

        clock.advance(seconds: 30)
        let second = try store.write(balance, variables: id101, json: BankOperations.balanceData)
        #expect(second.isEmpty)
        #expect(second.recordsWritten == 2)
        #expect(store.record("Account:101", in: alice)?.fields["balance"]?.writtenAt == clock.now())
    }

    @Test("the root typename and a changed __typename are tracked")
    func typenames() throws {
        let store = try makeNormalizedStore(keyed: false)
        let operation = try prepare("{ __typename node(id: \"x\") { __typename } }")
        try store.write(operation, json: #"{"__typename": "Query", "node": {"__typename": "Card"}}"#)
        let changes = try store.write(operation, json: #"{"__typename": "Query", "node": {"__typename": "Payee"}}"#)
        #expect(changes.changedFieldKeys == [#"QUERY_ROOT.node({"id":"x"}).__typename"#])
        #expect(store.record(GraphQLRecord.queryRootKey, in: alice)?.typename == "Query")
    }

    @Test("an aliased __typename still names the object's type for keys and fragments")
    func aliasedTypename() throws {
        let store = try makeNormalizedStore()
        let operation = try prepare(#"{ node(id: "101") { kind: __typename id ... on Account { balance } } }"#)
        let data = #"{"node": {"kind": "Account", "id": "101", "balance": 5}}"#
        try store.write(operation, json: data)
        #expect(store.record("Account:101", in: alice)?.typename == "Account")
        #expect(store.fieldNames("Account:101") == ["id", "balance"])
        #expect(try store.hitData(operation) == jsonObject(data))
    }

    @Test("writes are reported to the observer by operation name, refusals too")
    func writeEvents() throws {
        let recorder = StoreEventRecorder()
        let store = try makeNormalizedStore(observer: recorder)
        let accounts = try prepare(BankOperations.accounts)
        try store.write(accounts, json: BankOperations.accountsData)
        let generation = store.generation(of: alice)
        store.clear(scope: alice)
        _ = try store.write(
            accounts, data: try jsonObject(BankOperations.accountsData), in: alice, ifGeneration: generation)

        let inserted = recorder.events.compactMap { event -> Int? in
            if case .inserted(alice, "Accounts", let bytes) = event { return bytes }
            return nil
        }
        #expect(inserted.count == 1)
        #expect(inserted.first ?? 0 > 0)
        #expect(recorder.events.contains(.rejected(scope: alice, key: "Accounts", outcome: .rejectedStaleGeneration)))
    }
}
