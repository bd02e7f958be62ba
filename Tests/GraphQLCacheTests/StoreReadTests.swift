import CacheCore
import GraphQLCache
import Testing

@Suite("Normalized store: reads, hits and misses")
struct StoreReadTests {
    private let id101: GraphQLJSONObject = ["id": "101"]

    @Test("a read returns the data in the operation's shape and order")
    func shapeAndOrder() throws {
        let store = try makeNormalizedStore()
        try store.write(try prepare(BankOperations.details), variables: id101, json: BankOperations.detailsData)
        let reordered = try prepare(
            "query R($id: ID!) { account(id: $id) { type kind: __typename balance id } }"
        )
        let data = try store.hitData(reordered, variables: id101)
        let account = try #require(data["account"]?.objectValue)
        #expect(account.keys == ["type", "kind", "balance", "id"])
        #expect(account["kind"] == "Account")
    }

    @Test("a field the cache does not have makes the read a miss naming its path")
    func missingFieldPath() throws {
        let store = try makeNormalizedStore()
        try store.write(
            try prepare("{ accounts { __typename id name } }"),
            json: #"{"accounts": [{"__typename": "Account", "id": "101", "name": "A"}]}"#
        )
        let miss = try store.miss(try prepare(BankOperations.accounts))
        #expect(miss.path == "accounts.0.balance")
        #expect(miss.reason == .missingField)
        #expect(miss.touchedRecordKeys == ["QUERY_ROOT", "Account:101"])
    }

    @Test("an empty scope misses at the first selected field")
    func emptyScope() throws {
        let store = try makeNormalizedStore()
        let miss = try store.miss(try prepare(BankOperations.accounts), in: bob)
        #expect(miss.path == "accounts")
        #expect(miss.reason == .missingField)
    }

    @Test("a reference to a removed record is a miss naming that record")
    func danglingReference() throws {
        let store = try makeNormalizedStore()
        let accounts = try prepare(BankOperations.accounts)
        try store.write(accounts, json: BankOperations.accountsData)
        store.removeRecord("Account:102", in: alice)
        let miss = try store.miss(accounts)
        #expect(miss.path == "accounts.1")
        #expect(miss.reason == .missingRecord("Account:102"))
    }

    @Test("a read never crosses scopes")
    func scopesAreIsolated() throws {
        let store = try makeNormalizedStore()
        let accounts = try prepare(BankOperations.accounts)
        try store.write(accounts, json: BankOperations.accountsData, in: alice)
        #expect(try store.miss(accounts, in: bob).path == "accounts")
        #expect(try store.miss(accounts, in: .shared).path == "accounts")
        #expect(store.recordCount(in: bob) == 0)
        #expect(try store.hitData(accounts, in: alice)["accounts"]?.arrayValue?.count == 2)
    }

    @Test("a hit reports the records it touched and the oldest write, overall and per type")
    func freshnessInformation() throws {
        let clock = ManualCacheClock()
        let store = try makeNormalizedStore(clock: clock)
        let written = clock.now()
        try store.write(try prepare(BankOperations.accounts), json: BankOperations.accountsData)
        clock.advance(seconds: 60)
        try store.write(try prepare(BankOperations.balance), variables: id101, json: BankOperations.balanceData)

        let operation = try prepare("query Q($id: ID!) { account(id: $id) { __typename id balance } }")
        guard case .hit(let hit) = try store.read(operation, variables: id101, in: alice) else {
            throw StoreTestFailure("expected a hit")
        }
        #expect(hit.touchedRecordKeys == ["QUERY_ROOT", "Account:101"])
        #expect(hit.oldestWrite == clock.now())

        guard case .hit(let listHit) = try store.read(try prepare(BankOperations.accounts), in: alice) else {
            throw StoreTestFailure("expected a hit")
        }
        // `name` of Account:101 was written first; its balance again a minute later.
        #expect(listHit.oldestWrite == written)
        #expect(listHit.oldestWriteByTypename["Account"] == written)
        #expect(listHit.oldestWriteByTypename["Query"] == written)
        #expect(listHit.touchedRecordKeys == ["QUERY_ROOT", "Account:101", "Account:102"])
    }

    @Test("reads are counted as hits and misses and reported to the observer by operation name")
    func statisticsAndEvents() throws {
        let recorder = StoreEventRecorder()
        let store = try makeNormalizedStore(observer: recorder)
        let accounts = try prepare(BankOperations.accounts)
        try store.write(accounts, json: BankOperations.accountsData)
        _ = try store.read(accounts, in: alice)
        _ = try store.read(try prepare(BankOperations.details), variables: id101, in: alice)

        let statistics = store.statistics(for: alice)
        #expect(statistics.hits == 1)
        #expect(statistics.misses == 1)
        #expect(statistics.inserts == 3)
        #expect(statistics.entryCount == 3)
        #expect(recorder.events.contains(.hit(scope: alice, key: "Accounts")))
        #expect(recorder.events.contains(.miss(scope: alice, key: "GetAccount")))
    }

    @Test("a read of a fragment on a type needs the record's typename")
    func fragmentNeedsTypename() throws {
        let store = try makeNormalizedStore(keyed: false)
        try store.write(try prepare("{ profile { id } }"), json: #"{"profile": {"id": "alice"}}"#)
        let miss = try store.miss(try prepare("{ profile { ... on Profile { id } } }"))
        #expect(miss.path == "profile")
        #expect(miss.reason == .missingTypename)
    }

    @Test("a field read as a leaf where objects were stored is a miss, not wrong data")
    func shapeChangeIsAMiss() throws {
        let store = try makeNormalizedStore()
        try store.write(try prepare(BankOperations.accounts), json: BankOperations.accountsData)
        let miss = try store.miss(try prepare("{ accounts }"))
        #expect(miss.path == "accounts")
        #expect(miss.reason == .unexpectedValue)
    }

    @Test("@include with a variable that is not a boolean is a typed error")
    func invalidDirectiveVariable() throws {
        let store = try makeNormalizedStore()
        try store.write(try prepare(BankOperations.accounts), json: BankOperations.accountsData)
        let operation = try prepare("query Q($on: Boolean) { accounts @include(if: $on) { id } }")
        let error = try #require(throws: GraphQLCacheError.self) {
            try store.read(operation, variables: ["on": "yes"], in: alice)
        }
        #expect(error.code == .invalidVariables)
        let missing = try #require(throws: GraphQLCacheError.self) { try store.read(operation, in: alice) }
        #expect(missing.code == .invalidVariables)
    }
}
