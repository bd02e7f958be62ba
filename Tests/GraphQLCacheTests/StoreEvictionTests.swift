import CacheCore
import GraphQLCache
import Testing

@Suite("Normalized store: eviction, garbage collection and clears")
struct StoreEvictionTests {
    /// A store holding the two accounts, a balance query and a payment.
    private func filledStore(
        budget: MemoryBudget? = nil,
        observer: (any CacheEventObserver)? = nil
    ) throws -> GraphQLNormalizedStore {
        let store = try makeNormalizedStore(budget: budget, observer: observer)
        try store.write(try prepare(BankOperations.accounts), json: BankOperations.accountsData)
        try store.write(try prepare(BankOperations.balance), variables: ["id": "101"], json: BankOperations.balanceData)
        try store.write(
            try prepare(BankOperations.payment),
            variables: ["input": ["amount": 1]],
            json: BankOperations.paymentData
        )
        return store
    }

    @Test("removing a record reports its fields and bytes; reads through it miss")
    func removeRecord() throws {
        let store = try filledStore()
        let before = store.byteCount(in: alice)
        let record = try #require(store.record("Account:102", in: alice))

        let report = store.removeRecord("Account:102", in: alice)

        #expect(report.records == 1)
        #expect(report.fields == 3)
        #expect(report.bytes == record.byteCount)
        #expect(report.recordKeys == ["Account:102"])
        #expect(store.byteCount(in: alice) == before - record.byteCount)
        #expect(try store.miss(try prepare(BankOperations.accounts)).reason == .missingRecord("Account:102"))
        #expect(store.removeRecord("Account:102", in: alice).records == 0)
    }

    @Test("removing a record with its references also removes the fields that lead to it")
    func removeRecordAndReferences() throws {
        let store = try filledStore()
        let report = store.removeRecord("Account:101", removingReferences: true, in: alice)
        #expect(report.records == 1)
        // QUERY_ROOT.accounts, QUERY_ROOT.account(id: 101) and the payment's `account`.
        #expect(report.fields == 3 + 3)
        let root = try #require(store.record(GraphQLRecord.queryRootKey, in: alice))
        #expect(root.fields.isEmpty)
        #expect(try store.miss(try prepare(BankOperations.accounts)).reason == .missingField)
    }

    @Test("a glob removes exactly the keys it matches, not substrings")
    func globPattern() throws {
        let store = try filledStore()
        let report = try store.removeRecords(matching: "Account:10?", in: alice)
        #expect(Set(report.recordKeys) == ["Account:101", "Account:102"])
        let payment = #"MUTATION_ROOT.makePayment({"input":{"amount":1}})"#
        #expect(store.recordKeys() == ["MUTATION_ROOT", payment, "QUERY_ROOT", "Transaction:tx-101-26"])

        #expect(try store.removeRecords(matching: "tx-*", in: alice).records == 0)
        #expect(try store.removeRecords(matching: "*ROOT", in: alice).records == 2)
        #expect(try store.removeRecords(matching: "Transaction:tx-[0-9][!a-z]?-2[6-9]", in: alice).records == 1)
        #expect(try store.removeRecords(matching: "MUTATION_ROOT.*", in: alice).recordKeys == [payment])
        #expect(store.recordCount(in: alice) == 0)
    }

    @Test("an invalid glob is a typed error and removes nothing")
    func invalidGlob() throws {
        let store = try filledStore()
        let count = store.recordCount(in: alice)
        for pattern in ["Account:[1", "Account\\"] {
            let error = try #require(throws: GraphQLCacheError.self) {
                try store.removeRecords(matching: pattern, in: alice)
            }
            #expect(error.code == .invalidPattern)
        }
        #expect(store.recordCount(in: alice) == count)
        #expect(try store.removeRecords(matching: #"Account:\*"#, in: alice).records == 0)
    }

    @Test("evicting a field of one record removes it under every argument combination")
    func evictFieldOfRecord() throws {
        let store = try filledStore()
        let root = try #require(store.record(GraphQLRecord.queryRootKey, in: alice))
        #expect(root.fields.count == 2)
        let report = store.evictField("account", ofRecord: GraphQLRecord.queryRootKey, in: alice)
        #expect(report.fields == 1)
        #expect(report.records == 0)
        #expect(report.recordKeys == ["QUERY_ROOT"])
        #expect(store.fieldNames(GraphQLRecord.queryRootKey) == ["accounts"])
        #expect(store.evictField("acc", ofRecord: GraphQLRecord.queryRootKey, in: alice).fields == 0)
    }

    @Test("evicting Account.balance removes the balance of every account and nothing else")
    func evictFieldOfType() throws {
        let store = try filledStore()
        let report = try store.evictField(coordinate: "Account.balance", in: alice)
        #expect(report.fields == 2)
        #expect(Set(report.recordKeys) == ["Account:101", "Account:102"])
        #expect(store.fieldNames("Account:101") == ["id", "name"])
        #expect(store.fieldNames("Transaction:tx-101-26") == ["id", "amount"])
        #expect(try store.miss(try prepare(BankOperations.accounts)).path == "accounts.0.balance")

        for coordinate in ["Account", "Account.", ".balance", "A.b.c"] {
            let error = try #require(throws: GraphQLCacheError.self) {
                try store.evictField(coordinate: coordinate, in: alice)
            }
            #expect(error.code == .invalidPattern)
        }
    }

    @Test("removing whole records of a type")
    func removeByTypename() throws {
        let store = try filledStore()
        let report = store.removeRecords(ofTypename: "Transaction", in: alice)
        #expect(report.recordKeys == ["Transaction:tx-101-26"])
        #expect(store.recordCount(in: alice) == 5)
    }

    @Test("garbage collection removes what no root reaches any more")
    func garbageCollection() throws {
        let store = try filledStore()
        #expect(store.collectGarbage(in: alice).records == 0)

        let accounts = try prepare(BankOperations.accounts)
        try store.write(accounts, json: #"{"accounts": []}"#)
        store.removeRecord(GraphQLRecord.mutationRootKey, in: alice)
        let unreachable = try #require(store.record("Account:102", in: alice))

        let report = store.collectGarbage(in: alice)

        #expect(
            Set(report.recordKeys) == [
                "Account:102", "Transaction:tx-101-26", #"MUTATION_ROOT.makePayment({"input":{"amount":1}})"#,
            ]
        )
        #expect(report.bytes >= unreachable.byteCount)
        // Account:101 is still reached through QUERY_ROOT.account(id: "101").
        #expect(store.recordKeys() == ["Account:101", "QUERY_ROOT"])
    }

    @Test("clearing a scope drops everything, reports it, releases the budget and leaves other scopes")
    func clearScope() throws {
        let budget = try MemoryBudget(limit: 1 << 30)
        let recorder = StoreEventRecorder()
        let store = try filledStore(budget: budget, observer: recorder)
        try store.write(try prepare(BankOperations.accounts), json: BankOperations.accountsData, in: bob)
        let aliceBytes = store.byteCount(in: alice)
        let bobBytes = store.byteCount(in: bob)
        #expect(budget.usedBytes == aliceBytes + bobBytes)

        let report = store.clear(scope: alice, reason: .logout)

        #expect(report.records == 6)
        #expect(report.bytes == aliceBytes)
        #expect(store.recordCount(in: alice) == 0)
        #expect(budget.usedBytes == bobBytes)
        #expect(store.recordCount(in: bob) == 3)
        let cleared = recorder.events.compactMap { event -> ClearReport? in
            if case .cleared(let report) = event { return report }
            return nil
        }
        #expect(cleared.map(\.reason) == [.logout])
        #expect(cleared.first?.entries == 6)
        #expect(store.clear(scope: alice).records == 0)
    }
}
