import CacheCore
import Testing

@Suite("LRU eviction under count and byte limits")
struct EvictionTests {
    @Test("at the entry limit the least recently used entry goes first")
    func countLimitEvictsLeastRecent() throws {
        let recorder = EventRecorder()
        let store = try makeStore(observer: recorder) { $0.maxEntriesPerScope = 3 }
        store.put("1", "a", in: alice)
        store.put("2", "b", in: alice)
        store.put("3", "c", in: alice)
        _ = store.lookup("a", in: alice)  // a becomes most recent; b is now the least recent

        store.put("4", "d", in: alice)

        #expect(store.keys(in: alice) == ["d", "a", "c"])
        #expect(store.statistics(for: alice).evictions == 1)
        #expect(recorder.events.contains(.evicted(scope: alice, key: "b", reason: .entryLimit)))
    }

    @Test("peek does not change the eviction order")
    func peekDoesNotTouch() throws {
        let store = try makeStore { $0.maxEntriesPerScope = 2 }
        store.put("1", "a", in: alice)
        store.put("2", "b", in: alice)
        _ = store.peek("a", in: alice)

        store.put("3", "c", in: alice)

        #expect(store.sortedKeys(in: alice) == ["b", "c"])
    }

    @Test("at the byte limit as many least recent entries go as needed for the new one")
    func byteLimitEvictsEnough() throws {
        let store = try makeStore { $0.maxBytesPerScope = 100 }
        for key in ["a", "b", "c", "d"] {
            store.insert(key, byteCost: 24, key: key, scope: alice)  // 25 bytes charged with the key
        }
        #expect(store.statistics(for: alice).byteCount == 100)

        store.insert("big", byteCost: 48, key: "e", scope: alice)  // needs 49: a and b must go

        #expect(store.keys(in: alice) == ["e", "d", "c"])
        #expect(store.statistics(for: alice).byteCount == 99)
        #expect(store.statistics(for: alice).evictions == 2)
    }

    @Test("replacing a key frees its old bytes first and is not an eviction")
    func replacementIsNotEviction() throws {
        let store = try makeStore { $0.maxEntriesPerScope = 2 }
        store.put("1", "a", in: alice)
        store.put("2", "b", in: alice)

        store.put("1 again", "a", in: alice)

        #expect(store.keys(in: alice) == ["a", "b"])
        #expect(store.statistics(for: alice).evictions == 0)
        #expect(store.statistics(for: alice).byteCount == 1 + 1 + 7 + 1)
    }

    @Test("eviction in one scope never touches another scope")
    func evictionStaysInScope() throws {
        let store = try makeStore { $0.maxEntriesPerScope = 2 }
        store.put("x", "x", in: bob)
        for key in ["a", "b", "c", "d"] {
            store.put(key, key, in: alice)
        }

        #expect(store.keys(in: bob) == ["x"])
        #expect(store.entryCount(in: alice) == 2)
    }

    @Test("a value larger than the scope's byte limit is refused and the cache is unchanged")
    func tooLargeRejected() throws {
        let recorder = EventRecorder()
        let store = try makeStore(observer: recorder) { $0.maxBytesPerScope = 64 }
        store.put("small", "a", in: alice)
        store.put("other", "b", in: alice)
        let before = store.statistics(for: alice)

        let outcome = store.insert("huge", byteCost: 64, key: "a", scope: alice)

        #expect(outcome == .rejectedTooLarge)
        #expect(store.lookup("a", in: alice).string == "small")
        #expect(store.keys(in: alice) == ["a", "b"])
        #expect(store.statistics(for: alice).byteCount == before.byteCount)
        #expect(store.statistics(for: alice).evictions == 0)
        #expect(recorder.events.contains(.rejected(scope: alice, key: "a", outcome: .rejectedTooLarge)))
    }

    @Test("a negative byte cost is refused with a typed outcome")
    func negativeCostRejected() throws {
        let store = try makeStore()

        #expect(store.insert("v", byteCost: -1, key: "k", scope: alice) == .rejectedInvalid(.invalidByteCost))
        #expect(store.insert("v", byteCost: .max, key: "k", scope: alice) == .rejectedTooLarge)
        #expect(store.entryCount(in: alice) == 0)
    }

    @Test("the charged size is the declared cost plus the key length plus the configured overhead")
    func chargedBytes() throws {
        let store = try makeStore { $0.entryOverhead = 100 }
        store.insert("v", byteCost: 10, key: "four", scope: alice)

        let entry = try #require(store.peek("four", in: alice).entry)
        #expect(entry.byteCost == 10)
        #expect(entry.chargedBytes == 114)
        #expect(store.statistics(for: alice).byteCount == 114)
    }
}
