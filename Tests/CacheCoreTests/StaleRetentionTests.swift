import Foundation
import Testing

@testable import CacheCore

@Suite("Entries kept past expiry for as long as a stale-serving policy may use them")
struct StaleRetentionTests {
    private let hour = Duration.seconds(3_600)
    private let grace = Duration.seconds(60)

    private func kept(for retention: Duration, timeout: Double = 60) -> CacheEntryMetadata {
        CacheEntryMetadata(timeout: .seconds(timeout), staleRetention: retention)
    }

    /// One entry kept for an hour past expiry among `fillers` plain ones, so the scope is small (scanned) or
    /// indexed (a heap) as the argument says.
    private func storeWithKeptEntry(fillers: Int, clock: ManualCacheClock) throws -> CacheStore {
        let store = try makeStore(clock: clock)
        store.put("kept", "kept", in: alice, kept(for: hour))
        for index in 0..<fillers {
            store.put("plain", "plain\(index)", in: alice, CacheEntryMetadata(timeout: .seconds(60)))
        }
        return store
    }

    @Test(
        "an entry kept for an hour outlives purges half an hour past expiry; the plain ones beside it do not",
        arguments: [0, KeyIndex.scanLimit + 4])
    func survivesPurgesWithinItsWindow(fillers: Int) throws {
        let clock = ManualCacheClock()
        let store = try storeWithKeptEntry(fillers: fillers, clock: clock)

        clock.advance(seconds: 60 + 30 * 60)
        let report = store.purgeExpired(olderThan: grace)

        #expect(report.entries == fillers)
        #expect(store.keys(in: alice) == ["kept"])
        let entry = try #require(store.lookup("kept", in: alice).entry)
        #expect(store.peek("kept", in: alice).isStale)
        #expect(entry.staleness(at: clock.now()) == .seconds(30 * 60))
        #expect(entry.staleHorizon == entry.expiresAt.map { $0.advanced(by: hour) })
    }

    @Test(
        "an entry kept for an hour goes with the first purge whose grace ends past its horizon",
        arguments: [0, KeyIndex.scanLimit + 4])
    func purgedAfterItsHorizon(fillers: Int) throws {
        let clock = ManualCacheClock()
        let store = try storeWithKeptEntry(fillers: fillers, clock: clock)

        clock.advance(seconds: 60 + 3_600)
        store.purgeExpired(olderThan: grace)
        #expect(store.keys(in: alice) == ["kept"])
        clock.advance(seconds: 59)
        #expect(store.purgeExpired(olderThan: grace).entries == 0)
        clock.advance(seconds: 1)
        let report = store.purgeExpired(olderThan: grace)

        #expect(report.entries == 1)
        #expect(report.droppedScopes == 1)
        #expect(store.scopes.isEmpty)
        #expect(store.statistics().expirations == fillers + 1)
    }

    @Test("an entry with no retention is purged at its expiry plus the grace, as before")
    func plainEntryPurgedAsBefore() throws {
        let clock = ManualCacheClock()
        let store = try makeStore(clock: clock)
        store.put("v", "plain", in: alice, CacheEntryMetadata(timeout: .seconds(60)))
        store.put("v", "kept", in: alice, kept(for: .seconds(600)))

        clock.advance(seconds: 60 + 59)
        #expect(store.purgeExpired(olderThan: grace).entries == 0)
        clock.advance(seconds: 1)

        #expect(store.purgeExpired(olderThan: grace).entries == 1)
        #expect(store.keys(in: alice) == ["kept"])
    }

    @Test("a refresh keeps the retention and moves the horizon with the new expiry", arguments: [0, 12])
    func refreshMovesHorizon(fillers: Int) throws {
        let clock = ManualCacheClock()
        let store = try makeStore(clock: clock)
        store.put("v", "kept", in: alice, kept(for: .seconds(100), timeout: 10))
        for index in 0..<fillers {
            store.put("v", "never\(index)", in: alice, CacheEntryMetadata(timeout: .never))
        }
        clock.advance(seconds: 50)
        guard case .refreshed(let refreshed) = store.refresh(key: "kept", scope: alice) else {
            Issue.record("the entry was not refreshed")
            return
        }
        #expect(refreshed.metadata.staleRetention == .seconds(100))

        clock.advance(seconds: 10 + 99)  // the old horizon (110 s) is long past; the new one is 160 s
        #expect(store.purgeExpired().entries == 0)
        clock.advance(seconds: 1)
        #expect(store.purgeExpired().entries == 1)
        #expect(store.entryCount(in: alice) == fillers)
    }

    @Test("purging one scope honours the retention too")
    func purgeOneScope() throws {
        let clock = ManualCacheClock()
        let store = try makeStore(clock: clock)
        store.put("v", "kept", in: alice, kept(for: hour))
        clock.advance(seconds: 60 + 1_800)

        #expect(store.purgeExpired(in: alice, olderThan: grace).entries == 0)
        clock.advance(seconds: 1_800 + 60)
        #expect(store.purgeExpired(in: alice, olderThan: grace).entries == 1)
    }

    @Test("the retention is whole seconds rounded up, never negative, saturating, and takes no room in an entry")
    func compactRetention() {
        #expect(CacheEntryMetadata().staleRetention == .zero)
        #expect(CacheEntryMetadata(staleRetention: .milliseconds(1_500)).staleRetention == .seconds(2))
        #expect(CacheEntryMetadata(staleRetention: .seconds(-5)).staleRetention == .zero)
        #expect(CacheEntryMetadata(staleRetention: .milliseconds(-500)).staleRetention == .zero)
        #expect(CacheEntryMetadata(staleRetention: .seconds(Int64.max)).staleRetention == .seconds(Int64(UInt32.max)))
        var metadata = CacheEntryMetadata()
        metadata.staleRetention = hour
        #expect(metadata.staleRetention == hour)
        #expect(metadata != CacheEntryMetadata())

        // The field sits in the padding after the timeout: the metadata is as large as its fields without it.
        #expect(MemoryLayout<CacheEntryMetadata>.size == MemoryLayout<MetadataWithoutRetention>.size)
        #expect(MemoryLayout<CacheEntryMetadata>.stride == MemoryLayout<MetadataWithoutRetention>.stride)
    }

    @Test("an entry that never expires has no horizon and is never purged, whatever its retention")
    func neverExpires() throws {
        let clock = ManualCacheClock()
        let store = try makeStore(clock: clock)
        store.put("v", "forever", in: alice, CacheEntryMetadata(timeout: .never, staleRetention: hour))
        #expect(store.peek("forever", in: alice).entry?.staleHorizon == nil)
        clock.advance(seconds: 1_000_000)
        #expect(store.purgeExpired().entries == 0)
    }
}

@Suite("Under memory pressure, stale entries go before fresh ones")
struct StaleFirstReclaimTests {
    @Test("the fallback reclaim takes a scope's expired entry, kept for stale use, before its least recent fresh ones")
    func reclaimTakesExpiredFirst() throws {
        let clock = ManualCacheClock()
        let budget = try MemoryBudget(limit: 400)
        let store = try makeStore(clock: clock, budget: budget)
        let ender = SessionEnder(store: store, oldestFirst: [])  // a primary that frees nothing
        budget.register(ender, priority: .primary)
        store.charge(100, "fresh0", in: bob, timeout: 1_000)
        store.charge(100, "fresh1", in: bob, timeout: 1_000)
        store.charge(100, "stale", in: bob, timeout: 10, staleRetention: .seconds(3_600))
        clock.advance(seconds: 20)
        #expect(store.lookup("stale", in: bob).isStale)  // the most recently used entry of the scope

        store.charge(200, "a0", in: alice, timeout: 1_000)

        #expect(budget.usedBytes <= 400)
        #expect(store.sortedKeys(in: bob) == ["fresh0", "fresh1"])
        #expect(store.keys(in: alice) == ["a0"])
        withExtendedLifetime(ender) {}
    }

    @Test("with more to free than the expired entries hold, fresh ones follow, least recent first")
    func reclaimThenLeastRecent() throws {
        let clock = ManualCacheClock()
        let store = try makeStore(clock: clock)
        store.charge(100, "fresh0", in: bob, timeout: 1_000)
        store.charge(100, "fresh1", in: bob, timeout: 1_000)
        store.charge(100, "stale", in: bob, timeout: 10, staleRetention: .seconds(3_600))
        clock.advance(seconds: 20)

        #expect(store.reclaim(bytes: 150) == 200)
        #expect(store.keys(in: bob) == ["fresh1"])
        #expect(store.statistics(for: bob).evictions == 2)
    }
}

/// `CacheEntryMetadata`'s stored fields without the stale retention, in the same order: its size is what the
/// metadata would take if the retention needed room of its own.
private struct MetadataWithoutRetention {
    var timeout: Timeout
    var domains: Set<String>
    var accounts: Set<String>
    var isUplifted: Bool
    var validators: CacheValidators
    var entityKeys: Set<String>
    var tags: Set<String>
}

extension CacheStore {
    /// Inserts a value charged exactly `bytes`, expiring after `timeout` seconds and kept `staleRetention` past it.
    @discardableResult
    fileprivate func charge(
        _ bytes: Int, _ key: String, in scope: CacheScope, timeout: Double, staleRetention: Duration = .zero
    ) -> InsertOutcome {
        insert(
            "v", byteCost: bytes - key.utf8.count, key: key, scope: scope,
            metadata: CacheEntryMetadata(timeout: .seconds(timeout), staleRetention: staleRetention))
    }
}
