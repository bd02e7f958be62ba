import CacheCore
import GraphQLCache
import Testing

@Suite("Normalized store: selective clears, root storage keys and recorded activity")
struct StoreSelectiveClearTests {
    private let transactions = """
        query T($a: ID!, $n: Int = 2) { transactions(accountId: $a, first: $n) { __typename id amount } }
        """

    /// Alice's accounts, account 101 by id, and the first two transactions of 101 and 102.
    private func populated() throws -> GraphQLNormalizedStore {
        let store = try makeNormalizedStore()
        try store.write(prepare(BankOperations.accounts), json: BankOperations.accountsData)
        try store.write(prepare(BankOperations.balance), variables: ["id": "101"], json: BankOperations.balanceData)
        for account in ["101", "102"] {
            try store.write(
                prepare(transactions),
                variables: ["a": .string(account)],
                json: """
                    {"transactions": [{"__typename": "Transaction", "id": "tx-\(account)-1", "amount": -1.0},
                                      {"__typename": "Transaction", "id": "tx-\(account)-2", "amount": -2.0}]}
                    """
            )
        }
        return store
    }

    @Test("records and fields are selected by predicate; dangling references and garbage go too")
    func removeSelected() throws {
        let store = try populated()
        let report = store.removeSelected(
            records: { key, _ in key == "Account:101" },
            fields: { record, field in record == "QUERY_ROOT" && field.contains(#""accountId":"101""#) },
            collectingGarbage: true,
            in: alice
        )
        // accounts and account(id:) pointed at the removed record; without the list, Account:102 is garbage.
        #expect(
            report.recordKeys.sorted() == [
                "Account:101", "Account:102", "Transaction:tx-101-1", "Transaction:tx-101-2",
            ]
        )
        #expect(report.fields == 3 + 1 + 2 + 2 * 2 + 3)
        #expect(store.fieldNames("QUERY_ROOT") == [#"transactions({"accountId":"102","first":2})"#])
        #expect(store.record("Transaction:tx-102-1", in: alice) != nil)
    }

    @Test("without dangling removal, references stay and reads through them miss cleanly")
    func keepingDanglingReferences() throws {
        let store = try populated()
        let report = store.removeSelected(
            records: { key, _ in key == "Account:101" },
            fields: { _, _ in false },
            removingDanglingReferences: false,
            in: alice
        )
        #expect(report.records == 1)
        let miss = try store.miss(prepare(BankOperations.accounts))
        #expect(miss.reason == .missingRecord("Account:101"))
    }

    @Test("a selective clear is a clear: an answer that started before it is not stored")
    func movesTheGeneration() throws {
        let store = try populated()
        let generation = store.generation(of: alice)
        store.removeSelected(records: { _, _ in false }, fields: { _, _ in false }, in: alice)
        let outcome = try store.write(
            prepare(BankOperations.balance),
            variables: ["id": "102"],
            data: jsonObject(#"{"account": {"__typename": "Account", "id": "102", "balance": 1.0}}"#),
            in: alice,
            ifGeneration: generation
        )
        guard case .rejectedStaleGeneration = outcome else {
            Issue.record("expected the write to be refused, got \(outcome)")
            return
        }
    }

    @Test("selecting nothing removes nothing; another scope is untouched")
    func selectsNothing() throws {
        let store = try populated()
        try store.write(prepare(BankOperations.accounts), json: BankOperations.accountsData, in: bob)
        let before = store.records(in: alice)
        let report = store.removeSelected(records: { _, _ in false }, fields: { _, _ in false }, in: alice)
        #expect(report.records == 0)
        #expect(report.fields == 0)
        #expect(store.records(in: alice) == before)
        let everything = store.removeSelected(records: { _, _ in true }, fields: { _, _ in true }, in: alice)
        #expect(everything.records == before.count)
        #expect(store.recordCount(in: bob) == 3)
    }

    @Test("root storage keys follow variables, defaults, aliases and @include")
    func rootStorageKeys() throws {
        let store = try makeNormalizedStore()
        let operation = try prepare(
            """
            query R($a: ID!, $n: Int = 2, $all: Boolean!) {
              first: transactions(accountId: $a, first: $n) { id }
              accounts @include(if: $all) { id }
              me { id }
            }
            """
        )
        let keys = try store.rootStorageKeys(of: operation, variables: ["a": "101", "all": false])
        #expect(keys == [#"transactions({"accountId":"101","first":2})"#, "me"])
        #expect(try store.rootStorageKeys(of: operation, variables: ["a": "1", "all": true]).count == 3)
        let error = #expect(throws: GraphQLCacheError.self) {
            try store.rootStorageKeys(of: operation, variables: ["a": "101"])
        }
        #expect(error?.code == .invalidVariables)
    }

    @Test("upstream calls and joins are counted per scope and emitted as events")
    func recordedActivity() throws {
        let events = StoreEventRecorder()
        let store = try makeNormalizedStore(observer: events)
        store.record(.networkFetch(key: "Accounts", status: 200, duration: .milliseconds(5)), in: alice)
        store.record(.networkFetch(key: "Accounts", status: nil, duration: .zero), in: alice)
        store.record(.deduplicatedJoin(key: "Accounts"), in: alice)
        let statistics = store.statistics(for: alice)
        #expect(statistics.networkFetches == 2)
        #expect(statistics.deduplicatedJoins == 1)
        #expect(store.statistics(for: bob).networkFetches == 0)
        #expect(
            events.events == [
                .networkCall(scope: alice, key: "Accounts", status: 200, duration: .milliseconds(5)),
                .networkCall(scope: alice, key: "Accounts", status: nil, duration: .zero),
                .deduplicatedJoin(scope: alice, key: "Accounts"),
            ]
        )
    }

    @Test("a read of a scope that was never written counts its miss")
    func firstMissCounted() throws {
        let store = try makeNormalizedStore()
        _ = try store.miss(prepare(BankOperations.accounts), in: bob)
        #expect(store.statistics(for: bob).misses == 1)
    }
}
