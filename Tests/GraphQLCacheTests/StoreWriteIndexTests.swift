import CacheCore
import Testing

@testable import GraphQLCache

@Suite("Normalized store: the write index of small and large scopes")
struct StoreWriteIndexTests {
    private func instant(seconds: Double) -> CacheInstant {
        CacheInstant(nanoseconds: Int64(seconds * 1_000_000_000))
    }

    /// Writes accounts `ids` one second apart, the first at the clock's time.
    private func writeAccounts(_ ids: Range<Int>, to store: GraphQLNormalizedStore, clock: ManualCacheClock) throws {
        for id in ids {
            try store.writeAccount(id)
            clock.advance(seconds: 1)
        }
    }

    private func hasWriteIndex(_ store: GraphQLNormalizedStore, in scope: CacheScope = alice) throws -> Bool {
        let table = try #require(store.table(for: scope))
        return table.read { $0.writeIndex != nil }
    }

    private func accountKeys(_ ids: some Sequence<Int>) -> [String] {
        ids.map { "Account:\($0)" }
    }

    @Test("a scope of eight records keeps no write index and a purge removes exactly the records written before it")
    func smallScopePurgesExactly() throws {
        let clock = ManualCacheClock(instant: CacheInstant(nanoseconds: 0))
        let budget = try MemoryBudget(limit: 1 << 30)
        let store = try makeNormalizedStore(clock: clock, budget: budget)
        try writeAccounts(0..<7, to: store, clock: clock)
        #expect(store.recordCount(in: alice) == 8)
        #expect(try !hasWriteIndex(store))
        let oldBytes = accountKeys(0..<4).compactMap { store.record($0, in: alice)?.byteCount }.reduce(0, +)

        let report = store.purgeRecords(writtenBefore: instant(seconds: 3.5))

        #expect(report == GraphQLPurgeReport(records: 4, bytes: oldBytes, droppedScopes: 0, scopesVisited: 1))
        #expect(store.recordKeys() == accountKeys(4..<7) + ["QUERY_ROOT"])
        let statistics = store.statistics(for: alice)
        #expect(statistics.expirations == 4)
        #expect(statistics.inserts == 14)
        #expect(statistics.entryCount == 4)
        #expect(statistics.byteCount == store.records(in: alice).reduce(0) { $0 + $1.byteCount })
        #expect(budget.usedBytes == statistics.byteCount)
    }

    @Test("past eight records the scope builds its write index, purges as exactly, and drops the index at four")
    func largeScopeBuildsAndDropsItsIndex() throws {
        let clock = ManualCacheClock(instant: CacheInstant(nanoseconds: 0))
        let budget = try MemoryBudget(limit: 1 << 30)
        let store = try makeNormalizedStore(clock: clock, budget: budget)
        try writeAccounts(0..<7, to: store, clock: clock)
        #expect(try !hasWriteIndex(store))
        try writeAccounts(7..<20, to: store, clock: clock)
        #expect(store.recordCount(in: alice) == 21)
        #expect(try hasWriteIndex(store))

        let first = store.purgeRecords(writtenBefore: instant(seconds: 9.5))

        #expect(first.records == 10)
        #expect(store.recordKeys() == accountKeys(10..<20).sorted() + ["QUERY_ROOT"])
        #expect(try hasWriteIndex(store))
        let second = store.purgeRecords(writtenBefore: instant(seconds: 16.5))

        #expect(second.records == 7)
        #expect(store.recordKeys() == accountKeys(17..<20) + ["QUERY_ROOT"])
        #expect(try !hasWriteIndex(store))
        let statistics = store.statistics(for: alice)
        #expect(statistics.expirations == 17)
        #expect(statistics.entryCount == 4)
        #expect(budget.usedBytes == statistics.byteCount)
        // Small again: the next purge scans the records and still removes only the old ones.
        try writeAccounts(20..<22, to: store, clock: clock)
        let third = store.purgeRecords(writtenBefore: instant(seconds: 18.5))
        #expect(third.records == 2)
        #expect(store.recordKeys() == accountKeys(19..<22) + ["QUERY_ROOT"])
        #expect(store.statistics(for: alice).expirations == 19)
        #expect(budget.usedBytes == store.byteCount(in: alice))
    }

    @Test("a small scope is next due at its oldest record's last write, found by scanning its records")
    func smallScopeScheduledAtOldestWrite() throws {
        let clock = ManualCacheClock(instant: CacheInstant(nanoseconds: 0))
        let store = try makeNormalizedStore(clock: clock)
        try store.writeAccount(1)
        clock.advance(seconds: 10)
        try store.writeAccount(2)
        clock.advance(seconds: 10)
        try store.writeAccount(1)

        // Due at the first write: the visit removes nothing (Account:1 was written again) and schedules the scope
        // at Account:2's write, so a purge before that visits nothing.
        let early = store.purgeRecords(writtenBefore: instant(seconds: 5))
        #expect(early == GraphQLPurgeReport(records: 0, bytes: 0, droppedScopes: 0, scopesVisited: 1))
        #expect(store.purgeRecords(writtenBefore: instant(seconds: 10)).scopesVisited == 0)
        let due = store.purgeRecords(writtenBefore: instant(seconds: 15))
        #expect(due.scopesVisited == 1)
        #expect(due.records == 1)
        #expect(store.recordKeys() == ["Account:1", "QUERY_ROOT"])
    }

    @Test("rewriting a large scope's records many times keeps its write index within twice its records")
    func largeScopeIndexStaysBounded() throws {
        let clock = ManualCacheClock(instant: CacheInstant(nanoseconds: 0))
        let store = try makeNormalizedStore(clock: clock)
        for round in 0..<3_000 {
            try store.writeAccount(round % 12)
            clock.advance(seconds: 0.001)
            let table = try #require(store.table(for: alice))
            let indexed = table.read { $0.writeIndex?.count ?? 0 }
            #expect(indexed <= 2 * table.recordCount + 8)
        }
        clock.advance(seconds: 10)

        let report = store.purgeRecords(writtenBefore: clock.now())

        #expect(report.records == 13)
        #expect(report.droppedScopes == 1)
        #expect(store.statistics().expirations == 13)
    }
}
