import CacheCore
import Testing

@Suite("Generations: no write after clear")
struct GenerationTests {
    @Test("an answer whose generation predates a whole-scope clear is not stored")
    func insertAfterWholeClearRejected() throws {
        let store = try makeStore()
        store.put("old", "other", in: alice)
        let generation = store.generation(of: alice)

        store.clear(scope: alice, reason: .logout)
        let outcome = store.put("late", "k", in: alice, ifGeneration: generation)

        #expect(outcome == .rejectedStaleGeneration)
        #expect(store.lookup("k", in: alice).isMiss)
        #expect(store.entryCount(in: alice) == 0)
    }

    @Test("an answer whose generation predates a granular clear is not stored")
    func insertAfterGranularClearRejected() throws {
        let store = try makeStore()
        store.put("v", "balances.acc1", in: alice, CacheEntryMetadata(domains: ["balances"]))
        let generation = store.generation(of: alice)

        store.clear(domain: "balances", in: alice, reason: .mutation)

        #expect(store.put("late", "balances.acc1", in: alice, ifGeneration: generation) == .rejectedStaleGeneration)
        #expect(store.put("fresh", "balances.acc1", in: alice, ifGeneration: store.generation(of: alice)) == .stored)
    }

    @Test("taken with no partition, then another request stores, then a clear: the first answer is refused")
    func noPartitionThenStoreThenClear() throws {
        let store = try makeStore()
        let first = store.generation(of: alice)
        let second = store.generation(of: alice)
        #expect(store.put("second", "k2", in: alice, ifGeneration: second) == .stored)

        store.clear(scope: alice, reason: .logout)

        #expect(store.put("first", "k1", in: alice, ifGeneration: first) == .rejectedStaleGeneration)
        #expect(store.entryCount(in: alice) == 0)
    }

    @Test("taken with no partition, then a partition is created and cleared by a granular clear: refused")
    func noPartitionThenGranularClear() throws {
        let store = try makeStore()
        let first = store.generation(of: alice)
        store.put("v", "k2", in: alice)

        store.clear(keyPrefix: "k2", in: alice)

        #expect(store.put("first", "k1", in: alice, ifGeneration: first) == .rejectedStaleGeneration)
    }

    @Test("taken with no partition, then created, dropped and created again: still refused")
    func noPartitionThenRecreated() throws {
        let store = try makeStore()
        let first = store.generation(of: alice)
        store.put("v", "k", in: alice)
        store.clear(scope: alice, reason: .logout)
        store.put("after logout, new login", "k", in: alice)

        #expect(store.put("first", "k1", in: alice, ifGeneration: first) == .rejectedStaleGeneration)
        #expect(store.lookup("k", in: alice).string == "after logout, new login")
    }

    @Test("taken with no partition and a clear of the still-empty scope happens: refused")
    func noPartitionClearedBeforeAnyStore() throws {
        let store = try makeStore()
        let generation = store.generation(of: alice)

        store.clear(scope: alice, reason: .logout)

        #expect(store.put("late", "k", in: alice, ifGeneration: generation) == .rejectedStaleGeneration)
    }

    @Test("without any clear, answers taken with or without a partition are stored")
    func noClearMeansStored() throws {
        let store = try makeStore()
        let beforePartition = store.generation(of: alice)
        store.put("a", "a", in: alice)
        let afterPartition = store.generation(of: alice)
        store.put("b", "b", in: alice)
        _ = store.lookup("a", in: alice)

        #expect(store.put("late 1", "c", in: alice, ifGeneration: beforePartition) == .stored)
        #expect(store.put("late 2", "d", in: alice, ifGeneration: afterPartition) == .stored)
    }

    @Test("a clear of one scope does not invalidate another scope's generation")
    func otherScopesUnaffected() throws {
        let store = try makeStore { $0.stripeCount = 1 }
        store.put("v", "k", in: bob)
        let bobGeneration = store.generation(of: bob)

        store.clear(scope: alice, reason: .logout)
        store.clear(domain: "x", in: .shared)

        #expect(store.put("v2", "k2", in: bob, ifGeneration: bobGeneration) == .stored)
    }

    @Test("a generation is not reusable across scopes")
    func generationsAreScoped() throws {
        let store = try makeStore()
        store.put("v", "k", in: alice)
        store.put("v", "k", in: bob)

        #expect(store.put("x", "k", in: bob, ifGeneration: store.generation(of: alice)) == .rejectedStaleGeneration)
    }

    @Test("a refresh with a generation taken before a clear does not touch the entry stored since")
    func refreshAfterClearRejected() throws {
        let clock = ManualCacheClock()
        let store = try makeStore(clock: clock)
        store.put("v", "k", in: alice, CacheEntryMetadata(timeout: .seconds(10), isUplifted: true))
        let generation = store.generation(of: alice)
        store.clear(domain: "none", in: alice)
        clock.advance(seconds: 20)

        let outcome = store.refresh(key: "k", scope: alice, ifGeneration: generation)

        guard case .rejectedStaleGeneration = outcome else {
            Issue.record("expected a refused refresh, got \(outcome)")
            return
        }
        #expect(store.peek("k", in: alice).isStale)
    }

    @Test("tokens are ordered: a clear of the scope makes later tokens newer, other scopes' clears do not")
    func tokensAreOrderedByClears() throws {
        let store = try makeStore()
        store.put("v", "k", in: alice)
        let flight = store.generation(of: alice)
        store.clear(scope: bob, reason: .logout)
        store.put("w", "k", in: bob)
        let sameGeneration = store.generation(of: alice)
        #expect(flight.isNotOlder(than: sameGeneration))
        #expect(sameGeneration.isNotOlder(than: flight))

        store.clear(keyPrefix: "other", in: alice)
        let afterClear = store.generation(of: alice)
        #expect(!flight.isNotOlder(than: afterClear))
        #expect(afterClear.isNotOlder(than: flight))

        store.clear(scope: alice, reason: .logout)
        let afterDrop = store.generation(of: alice)
        #expect(!afterClear.isNotOlder(than: afterDrop))
        // Re-creating the partition also moves on: conservative (one more upstream call), never a stale answer.
        store.put("x", "k", in: alice)
        let recreated = store.generation(of: alice)
        #expect(recreated.isNotOlder(than: afterDrop))
        #expect(!afterDrop.isNotOlder(than: recreated))
    }
}
