import CacheCore
import Testing

@Suite("Purging expired entries")
struct PurgeTests {
    @Test("purgeExpired removes entries past expiry plus grace, in every scope, and counts expirations")
    func purgeWithGrace() throws {
        let clock = ManualCacheClock()
        let budget = try MemoryBudget(limit: 1_000_000)
        let store = try makeStore(clock: clock, budget: budget)
        store.put("v", "short", in: alice, CacheEntryMetadata(timeout: .seconds(10)))
        store.put("v", "long", in: alice, CacheEntryMetadata(timeout: .seconds(100)))
        store.put("v", "never", in: alice, CacheEntryMetadata(timeout: .never))
        store.put("v", "short", in: bob, CacheEntryMetadata(timeout: .seconds(10)))
        clock.advance(seconds: 50)

        let withinGrace = store.purgeExpired(olderThan: .seconds(60))
        #expect(withinGrace.entries == 0)

        let report = store.purgeExpired(olderThan: .seconds(30))

        #expect(report.entries == 2)
        #expect(report.bytes == 2 * ("v" + "short").utf8.count)
        #expect(store.sortedKeys(in: alice) == ["long", "never"])
        #expect(store.statistics(for: alice).expirations == 1)
        #expect(store.statistics().expirations == 2)
        #expect(budget.usedBytes == store.statistics().byteCount)
    }

    @Test("purging drops scopes left empty, so ended sessions do not linger")
    func dropsEmptyScopes() throws {
        let clock = ManualCacheClock()
        let store = try makeStore(clock: clock)
        store.put("v", "k", in: alice, CacheEntryMetadata(timeout: .seconds(1)))
        store.put("v", "k", in: bob, CacheEntryMetadata(timeout: .never))
        _ = store.lookup("k", in: .session("looked-only"))
        clock.advance(seconds: 5)

        let report = store.purgeExpired()

        #expect(report.droppedScopes == 2)
        #expect(store.scopes == [bob])
        #expect(store.statistics().misses == 1)
    }

    @Test("purging one scope leaves the others' expired entries in place")
    func purgeOneScope() throws {
        let clock = ManualCacheClock()
        let store = try makeStore(clock: clock)
        store.put("v", "k", in: alice, CacheEntryMetadata(timeout: .seconds(1)))
        store.put("v", "k", in: bob, CacheEntryMetadata(timeout: .seconds(1)))
        clock.advance(seconds: 5)

        let report = store.purgeExpired(in: alice)

        #expect(report.entries == 1)
        #expect(store.entryCount(in: alice) == 0)
        #expect(store.peek("k", in: bob).isStale)
    }

    @Test("purging a store with nothing expired changes nothing")
    func nothingToPurge() throws {
        let store = try makeStore()
        store.put("v", "k", in: alice, CacheEntryMetadata(timeout: .never))

        let report = store.purgeExpired()

        #expect(report == PurgeReport(entries: 0, bytes: 0, droppedScopes: 0))
        #expect(store.lookup("k", in: alice).isFresh)
    }
}
