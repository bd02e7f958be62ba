import CacheCore
import Testing

@Suite("Changing limits at run time")
struct LimitUpdateTests {
    @Test("lowering the budget's limit reclaims the excess at once")
    func loweringBudgetReclaims() throws {
        let budget = try MemoryBudget(limit: 1_000)
        let store = try makeStore(budget: budget)
        for index in 0..<4 {
            store.charge(100, "b\(index)", in: bob)
        }
        store.charge(200, "a", in: alice)

        try budget.updateLimit(300)

        #expect(budget.limit == 300)
        #expect(budget.usedBytes <= 300)
        #expect(store.keys(in: alice) == ["a"])
        #expect(store.sortedKeys(in: bob) == ["b3"])
        #expect(budget.usedBytes == store.statistics().byteCount)
    }

    @Test("lowering the limit asks the primary reclaimer first; raising it frees nothing")
    func loweringAsksPrimary() throws {
        let budget = try MemoryBudget(limit: 1_000)
        let store = try makeStore(budget: budget)
        let ender = SessionEnder(store: store, oldestFirst: [bob, alice])
        budget.register(ender, priority: .primary)
        store.charge(300, "b", in: bob)
        store.charge(300, "a", in: alice)

        try budget.updateLimit(2_000)
        #expect(ender.ended.isEmpty)

        try budget.updateLimit(400)

        #expect(ender.ended == [bob])
        #expect(store.keys(in: alice) == ["a"])
        #expect(budget.usedBytes == 300)
    }

    @Test("a limit that is not positive is refused and the budget keeps its limit")
    func invalidBudgetLimit() throws {
        let budget = try MemoryBudget(limit: 1_000)
        for bad in [0, -1, Int.min] {
            let error = #expect(throws: CacheCoreError.self) { try budget.updateLimit(bad) }
            #expect(error?.code == .invalidConfiguration)
        }
        #expect(budget.limit == 1_000)
    }

    @Test("a lower entry limit applies to the scope's next insert, not before")
    func entryLimitAppliesToNextInsert() throws {
        let recorder = EventRecorder()
        let store = try makeStore(observer: recorder)
        for index in 0..<5 {
            store.charge(10, "k\(index)", in: alice)
        }

        try store.updateLimits(maxEntriesPerScope: 2, maxBytesPerScope: 1_000)

        #expect(store.entryCount(in: alice) == 5)
        #expect(store.currentLimits == CacheStore.Limits(maxEntriesPerScope: 2, maxBytesPerScope: 1_000))
        #expect(store.configuration.maxEntriesPerScope == 10_000)
        store.charge(10, "k5", in: alice)
        #expect(store.sortedKeys(in: alice) == ["k4", "k5"])
        #expect(store.statistics(for: alice).evictions == 4)
        #expect(recorder.events.contains(.evicted(scope: alice, key: "k0", reason: .entryLimit)))
    }

    @Test("a lower byte limit trims on the next insert and refuses entries larger than itself")
    func byteLimitAppliesToNextInsert() throws {
        let store = try makeStore()
        for index in 0..<5 {
            store.charge(100, "k\(index)", in: alice)
        }

        try store.updateLimits(maxEntriesPerScope: 100, maxBytesPerScope: 250)

        #expect(store.charge(251, "huge", in: alice) == .rejectedTooLarge)
        #expect(store.entryCount(in: alice) == 5)
        #expect(store.charge(100, "k5", in: alice) == .stored)
        #expect(store.sortedKeys(in: alice) == ["k4", "k5"])
        #expect(store.statistics(for: alice).byteCount == 200)
    }

    @Test("raising the limits lets a scope grow past the old ones")
    func raisingLimits() throws {
        let store = try makeStore { $0.maxEntriesPerScope = 2 }
        try store.updateLimits(maxEntriesPerScope: 3, maxBytesPerScope: 1_000)
        for index in 0..<3 {
            store.charge(10, "k\(index)", in: alice)
        }
        #expect(store.entryCount(in: alice) == 3)
    }

    @Test("limits that are not positive are refused with invalidConfiguration and nothing changes")
    func invalidStoreLimits() throws {
        let store = try makeStore { $0.maxEntriesPerScope = 3 }
        let before = store.currentLimits
        for (entries, bytes) in [(0, 100), (-1, 100), (3, 0), (3, -50)] {
            let error = #expect(throws: CacheCoreError.self) {
                try store.updateLimits(maxEntriesPerScope: entries, maxBytesPerScope: bytes)
            }
            #expect(error?.code == .invalidConfiguration)
        }
        #expect(store.currentLimits == before)
        for index in 0..<4 {
            store.charge(10, "k\(index)", in: alice)
        }
        #expect(store.entryCount(in: alice) == 3)
    }
}
