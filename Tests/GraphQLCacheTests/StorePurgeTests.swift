import CacheCore
import FixtureSupport
import GraphQLCache
import Testing

@Suite("Normalized store: purging records by write time")
struct StorePurgeTests {
    private let balance = BankOperations.balance

    private func instant(_ seconds: Int64) -> CacheInstant {
        CacheInstant(nanoseconds: seconds * 1_000_000_000)
    }

    @Test("records last written before the cutoff go; records written again since stay; reads through them miss")
    func removesOnlyOldRecords() throws {
        let clock = ManualCacheClock()
        let budget = try MemoryBudget(limit: 1 << 30)
        let recorder = StoreEventRecorder()
        let store = try makeNormalizedStore(clock: clock, budget: budget, observer: recorder)
        try store.writeAccount(1)
        try store.writeAccount(2)
        let oneBytes = try #require(store.record("Account:1", in: alice)?.byteCount)
        clock.advance(seconds: 10)
        try store.writeAccount(2)

        let report = store.purgeRecords(writtenBefore: clock.now().advanced(by: .seconds(-5)))

        #expect(report == GraphQLPurgeReport(records: 1, bytes: oneBytes, droppedScopes: 0, scopesVisited: 1))
        #expect(store.recordKeys() == ["Account:2", "QUERY_ROOT"])
        #expect(store.statistics(for: alice).expirations == 1)
        #expect(recorder.events.contains(.evicted(scope: alice, key: "Account:1", reason: .expired)))
        #expect(budget.usedBytes == store.byteCount(in: alice))
        // The root still references Account:1: the read is a clean miss, never stale or wrong data.
        let miss = try store.miss(try prepare(balance), variables: ["id": "1"])
        #expect(miss.path.hasPrefix("account"))
        #expect(try store.hitData(try prepare(balance), variables: ["id": "2"])["account"]?["balance"] == 2)
    }

    @Test("a record written at exactly the cutoff stays; a field written since keeps its whole record")
    func cutoffIsExclusive() throws {
        let clock = ManualCacheClock()
        let store = try makeNormalizedStore(clock: clock)
        try store.writeAccount(1)
        let written = clock.now()
        clock.advance(seconds: 30)

        #expect(store.purgeRecords(writtenBefore: written).records == 0)
        #expect(store.recordCount(in: alice) == 2)
        #expect(store.purgeRecords(writtenBefore: written.advanced(by: .nanoseconds(1))).records == 2)
    }

    @Test("a scope whose records all went is dropped, and its counters stay in the process totals")
    func dropsEmptiedScopes() throws {
        let clock = ManualCacheClock()
        let store = try makeNormalizedStore(clock: clock)
        try store.writeAccount(1)
        try store.writeAccount(2, in: bob)
        clock.advance(seconds: 100)
        try store.writeAccount(3, in: bob)

        let report = store.purgeRecords(writtenBefore: clock.now())

        #expect(report.records == 3)
        #expect(report.droppedScopes == 1)
        #expect(store.statistics(for: alice) == CacheStatistics())
        #expect(store.statistics().expirations == 3)
        #expect(store.recordKeys(in: bob) == ["Account:3", "QUERY_ROOT"])
    }

    @Test("a purge over 5,000 scopes where one holds old records visits only that one")
    func visitsOnlyDueScopes() throws {
        let clock = ManualCacheClock()
        let store = try makeNormalizedStore(clock: clock) { $0.stripeCount = 64 }
        try store.writeAccount(1, in: .session("old"))
        clock.advance(seconds: 100)
        for index in 0..<5_000 {
            try store.writeAccount(index, in: .session("s\(index)"))
        }

        let report = store.purgeRecords(writtenBefore: instant(50))

        #expect(report.scopesVisited == 1)
        #expect(report.records == 2)
        #expect(report.droppedScopes == 1)
        #expect(store.recordCount(in: .session("s42")) == 2)
        #expect(store.purgeRecords(writtenBefore: instant(50)).scopesVisited == 0)
    }

    @Test("a scope only read (never written) is dropped once the cutoff passes the read")
    func dropsReadOnlyScopes() throws {
        let clock = ManualCacheClock()
        let store = try makeNormalizedStore(clock: clock)
        _ = try store.miss(try prepare(balance), variables: ["id": "1"], in: bob)
        #expect(store.statistics(for: bob).misses == 1)
        let readAt = clock.now()
        clock.advance(seconds: 1)

        #expect(store.purgeRecords(writtenBefore: readAt).droppedScopes == 0)
        #expect(store.statistics(for: bob).misses == 1)
        let report = store.purgeRecords(writtenBefore: clock.now())

        #expect(report.droppedScopes == 1)
        #expect(store.statistics(for: bob) == CacheStatistics())
        #expect(store.statistics().misses == 1)
    }

    @Test("a write that took its generation before a purge dropped its scope is refused")
    func inFlightWriteRefused() throws {
        let clock = ManualCacheClock()
        let store = try makeNormalizedStore(clock: clock)
        try store.writeAccount(1)
        let generation = store.generation(of: alice)
        clock.advance(seconds: 10)
        #expect(store.purgeRecords(writtenBefore: clock.now()).droppedScopes == 1)

        let outcome = try store.write(
            try prepare(balance),
            variables: ["id": "1"],
            data: try jsonObject(#"{"account": {"__typename": "Account", "id": "1", "balance": 1}}"#),
            in: alice,
            ifGeneration: generation
        )

        guard case .rejectedStaleGeneration = outcome else {
            throw StoreTestFailure("expected rejectedStaleGeneration, got \(outcome)")
        }
        #expect(store.recordCount(in: alice) == 0)
    }

    @Test("rewriting the same records many times keeps the write index bounded and purges each record once")
    func rewritesStayBounded() throws {
        let clock = ManualCacheClock()
        let store = try makeNormalizedStore(clock: clock)
        for round in 0..<2_000 {
            try store.writeAccount(round % 3)
            clock.advance(seconds: 0.001)
        }
        clock.advance(seconds: 10)

        let report = store.purgeRecords(writtenBefore: clock.now())

        #expect(report.records == 4)
        #expect(store.statistics().expirations == 4)
    }

    @Test("purges running while tasks write, read and clear keep the budget equal to what is held")
    func concurrentPurges() async throws {
        let clock = ManualCacheClock()
        let budget = try MemoryBudget(limit: 1 << 30)
        let store = try makeNormalizedStore(clock: clock, budget: budget)
        let operation = try prepare(balance)
        let scopes = (0..<12).map { CacheScope.session("s\($0)") }

        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    var generator = SeededGenerator(seed: UInt64(worker) + 7)
                    for step in 0..<600 {
                        let scope = scopes[Int(generator.next() % UInt64(scopes.count))]
                        let id = Int(generator.next() % 20)
                        switch generator.next() % 10 {
                        case 0...5:
                            let generation = store.generation(of: scope)
                            try store.write(
                                operation,
                                variables: ["id": .string("\(id)")],
                                data: try jsonObject(
                                    #"{"account": {"__typename": "Account", "id": "\#(id)", "balance": \#(step)}}"#
                                ),
                                in: scope,
                                ifGeneration: generation
                            )
                        case 6...8:
                            _ = try store.read(operation, variables: ["id": .string("\(id)")], in: scope)
                        default:
                            store.clear(scope: scope)
                        }
                    }
                }
            }
            group.addTask {
                for _ in 0..<200 {
                    clock.advance(seconds: 1)
                    store.purgeRecords(writtenBefore: clock.now().advanced(by: .seconds(-3)))
                    await Task.yield()
                }
            }
            try await group.waitForAll()
        }

        let held = scopes.reduce(0) { $0 + store.byteCount(in: $1) }
        #expect(budget.usedBytes == held)
        for scope in scopes {
            #expect(store.byteCount(in: scope) == store.records(in: scope).reduce(0) { $0 + $1.byteCount })
        }
        clock.advance(seconds: 10)
        store.purgeRecords(writtenBefore: clock.now())
        #expect(budget.usedBytes == 0)
        #expect(store.statistics().entryCount == 0)
    }
}
