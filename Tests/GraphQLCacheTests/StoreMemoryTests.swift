import CacheCore
import GraphQLCache
import Testing

@Suite("Normalized store: byte accounting, limits and the memory budget")
struct StoreMemoryTests {
    private let balance = BankOperations.balance

    private func sumOfRecords(_ store: GraphQLNormalizedStore, _ scope: CacheScope = alice) -> Int {
        store.records(in: scope).reduce(0) { $0 + $1.byteCount }
    }

    @Test("a record is charged its overhead, its key and its fields")
    func recordCost() throws {
        let store = try makeNormalizedStore { configuration in
            configuration.recordOverhead = 100
            configuration.fieldOverhead = 10
        }
        try store.writeAccount(7)
        // "Account:7", "id" → "7" and "balance" → 7 are all inline (≤ 15 bytes): overheads only.
        #expect(store.record("Account:7", in: alice)?.byteCount == 100 + 10 + 10)
        let rootFieldKey = #"account({"id":"7"})"#  // 19 bytes: heap, charged 19 + 32
        #expect(store.record(GraphQLRecord.queryRootKey, in: alice)?.byteCount == 100 + 10 + 19 + 32)
        #expect(store.byteCount(in: alice) == 120 + 161)
        #expect(rootFieldKey.utf8.count == 19)
    }

    @Test("the scope's byte count and the budget follow every write, change and removal")
    func accountingStaysExact() throws {
        let budget = try MemoryBudget(limit: 1 << 30)
        let store = try makeNormalizedStore(budget: budget)
        let accounts = try prepare(BankOperations.accounts)
        try store.write(accounts, json: BankOperations.accountsData)
        #expect(store.byteCount(in: alice) == sumOfRecords(store))
        #expect(budget.usedBytes == store.byteCount(in: alice))

        let longName = String(repeating: "x", count: 200)
        try store.write(
            accounts,
            json: #"{"accounts": [{"__typename": "Account", "id": "101", "name": "\#(longName)", "balance": 1}]}"#
        )
        #expect(store.byteCount(in: alice) == sumOfRecords(store))
        #expect(budget.usedBytes == store.byteCount(in: alice))

        try store.write(accounts, json: BankOperations.accountsData)
        store.evictField("name", ofRecord: "Account:102", in: alice)
        store.removeRecord("Account:101", removingReferences: true, in: alice)
        #expect(store.byteCount(in: alice) == sumOfRecords(store))
        #expect(budget.usedBytes == store.byteCount(in: alice))

        store.clear(scope: alice)
        #expect(budget.usedBytes == 0)
    }

    @Test("over the record limit, the least recently used records go first, and a read counts as use")
    func recordLimitEvictsLeastRecent() throws {
        let recorder = StoreEventRecorder()
        let store = try makeNormalizedStore(observer: recorder) { $0.maxRecordsPerScope = 4 }
        try store.writeAccount(1)
        try store.writeAccount(2)
        try store.writeAccount(3)
        _ = try store.hitData(try prepare(balance), variables: ["id": "1"])

        try store.writeAccount(4)

        #expect(store.recordKeys() == ["Account:1", "Account:3", "Account:4", "QUERY_ROOT"])
        #expect(store.statistics(for: alice).evictions == 1)
        #expect(recorder.events.contains(.evicted(scope: alice, key: "Account:2", reason: .entryLimit)))
    }

    @Test("over the byte limit, older records go until the scope fits again")
    func byteLimit() throws {
        let store = try makeNormalizedStore {
            $0.recordOverhead = 100
            $0.fieldOverhead = 0
            $0.maxBytesPerScope = 700
        }
        for id in 1...5 {
            try store.writeAccount(id)
        }
        #expect(store.byteCount(in: alice) <= 700)
        #expect(store.record("Account:5", in: alice) != nil)
        #expect(store.record("Account:1", in: alice) == nil)
        #expect(store.statistics(for: alice).evictions > 0)
    }

    @Test("a response larger than a scope may hold is refused and changes nothing")
    func tooLarge() throws {
        let store = try makeNormalizedStore { $0.maxRecordsPerScope = 2 }
        try store.writeAccount(1)
        let before = store.records(in: alice)
        let outcome = try store.write(
            try prepare(BankOperations.accounts),
            data: try jsonObject(BankOperations.accountsData),
            in: alice
        )
        guard case .rejectedTooLarge = outcome else {
            throw StoreTestFailure("expected rejectedTooLarge, got \(outcome)")
        }
        #expect(store.records(in: alice) == before)
    }

    @Test("over the process budget, the writing scope pays first, never with what it just wrote")
    func budgetWritingScopePaysFirst() throws {
        let probe = try makeNormalizedStore()
        try probe.writeAccount(1)
        let accountBytes = try #require(probe.record("Account:1", in: alice)?.byteCount)

        let budget = try MemoryBudget(limit: 10_000)
        let store = try makeNormalizedStore(budget: budget)
        try store.writeAccount(100, in: bob)
        let bobBytes = store.byteCount(in: bob)
        var id = 1
        while budget.usedBytes + 2 * accountBytes + 64 < budget.limit {
            try store.writeAccount(id)
            id += 1
        }
        try store.writeAccount(id)
        try store.writeAccount(id + 1)

        #expect(budget.usedBytes <= budget.limit)
        #expect(store.byteCount(in: bob) == bobBytes)
        #expect(store.record("Account:\(id + 1)", in: alice) != nil)
        #expect(store.record("Account:1", in: alice) == nil)
        #expect(budget.usedBytes == store.byteCount(in: alice) + store.byteCount(in: bob))
    }

    @Test("the REST store's inserts over the shared budget take GraphQL records back")
    func sharedBudgetWithCacheStore() throws {
        let budget = try MemoryBudget(limit: 20_000)
        let graphQL = try makeNormalizedStore(budget: budget)
        for id in 1...10 {
            try graphQL.writeAccount(id)
        }
        let held = graphQL.byteCount(in: alice)
        let rest = try CacheStore(configuration: CacheStore.Configuration(entryOverhead: 0), budget: budget)

        rest.insert("payload", byteCost: 20_000 - held + 1_000, key: "big", scope: bob)

        #expect(budget.usedBytes <= budget.limit)
        #expect(graphQL.byteCount(in: alice) < held)
        #expect(graphQL.statistics(for: alice).evictions > 0)
        #expect(rest.peek("big", in: bob).isHit)
    }

    @Test("a store that goes away gives its bytes back to the budget")
    func deinitReleasesBudget() throws {
        let budget = try MemoryBudget(limit: 1 << 30)
        do {
            let store = try makeNormalizedStore(budget: budget)
            try store.writeAccount(1)
            try store.writeAccount(2, in: bob)
            #expect(budget.usedBytes > 0)
        }
        #expect(budget.usedBytes == 0)
    }

    @Test("limits out of range are refused with invalidConfiguration")
    func invalidConfiguration() {
        for configure in [
            { (configuration: inout GraphQLNormalizedStore.Configuration) in configuration.maxRecordsPerScope = 0 },
            { $0.maxBytesPerScope = -1 }, { $0.recordOverhead = -1 }, { $0.fieldOverhead = -5 }, { $0.stripeCount = 0 },
        ] {
            var configuration = GraphQLNormalizedStore.Configuration()
            configure(&configuration)
            let error = #expect(throws: GraphQLCacheError.self) {
                _ = try GraphQLNormalizedStore(configuration: configuration)
            }
            #expect(error?.code == .invalidConfiguration)
        }
        #expect((try? GraphQLNormalizedStore()) != nil)
    }
}

extension CacheLookup {
    fileprivate var isHit: Bool {
        if case .miss = self {
            return false
        }
        return true
    }
}
