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

@Suite("Purging expired entries at the cost of what expired")
struct IndexedPurgeTests {
    @Test("the purge removes exactly the expired values: not fresh ones, not ones replaced or refreshed since")
    func removesExactlyTheExpired() throws {
        let clock = ManualCacheClock()
        let recorder = EventRecorder()
        let store = try makeStore(clock: clock, observer: recorder)
        let short = CacheEntryMetadata(timeout: .seconds(10))
        store.put("old", "replaced", in: alice, short)
        store.put("v", "refreshed", in: alice, short)
        store.put("v", "expired", in: alice, short)
        store.put("v", "fresh", in: alice, CacheEntryMetadata(timeout: .seconds(100)))
        clock.advance(seconds: 5)
        store.put("new", "replaced", in: alice, CacheEntryMetadata(timeout: .seconds(100)))
        store.refresh(key: "refreshed", scope: alice, timeout: .seconds(100))
        clock.advance(seconds: 10)
        recorder.reset()

        let report = store.purgeExpired()

        #expect(report.entries == 1)
        #expect(report.scopesVisited == 1)
        #expect(store.sortedKeys(in: alice) == ["fresh", "refreshed", "replaced"])
        #expect(store.peek("replaced", in: alice).string == "new")
        #expect(store.statistics(for: alice).expirations == 1)
        #expect(recorder.events == [.evicted(scope: alice, key: "expired", reason: .expired)])
    }

    @Test("a value refreshed to a shorter timeout is purged at its new expiry")
    func refreshedShorter() throws {
        let clock = ManualCacheClock()
        let store = try makeStore(clock: clock)
        store.put("v", "k", in: alice, CacheEntryMetadata(timeout: .seconds(100)))
        store.refresh(key: "k", scope: alice, timeout: .seconds(5))
        clock.advance(seconds: 6)

        #expect(store.purgeExpired().entries == 1)
        #expect(store.entryCount(in: alice) == 0)
    }

    @Test("a purge over 10,000 scopes where one entry expired visits only that scope")
    func visitsOnlyDueScopes() throws {
        let clock = ManualCacheClock()
        let budget = try MemoryBudget(limit: 1 << 30)
        let store = try makeStore(clock: clock, budget: budget) { $0.stripeCount = 64 }
        for index in 0..<10_000 {
            store.put("v", "k", in: .session("s\(index)"), CacheEntryMetadata(timeout: .seconds(300)))
        }
        store.put("v", "short", in: .session("s4242"), CacheEntryMetadata(timeout: .seconds(1)))
        clock.advance(seconds: 10)

        let report = store.purgeExpired()

        #expect(report.scopesVisited == 1)
        #expect(report.entries == 1)
        #expect(report.droppedScopes == 0)
        #expect(store.keys(in: .session("s4242")) == ["k"])
        #expect(store.scopes.count == 10_000)
        #expect(store.purgeExpired().scopesVisited == 0)

        clock.advance(seconds: 300)
        let late = store.purgeExpired()
        #expect(late.entries == 10_000)
        #expect(late.droppedScopes == 10_000)
        #expect(store.scopes.isEmpty)
        #expect(budget.usedBytes == 0)
    }

    @Test("scopes left empty by a removal, a clear or a lookup are dropped by the next purge; others stay")
    func dropsScopesEmptiedOtherwise() throws {
        let store = try makeStore()
        store.put("v", "k", in: alice, CacheEntryMetadata(timeout: .never))
        store.put("v", "k", in: bob, CacheEntryMetadata(timeout: .never, domains: ["cards"]))
        store.put("v", "k", in: .shared, CacheEntryMetadata(timeout: .never))
        _ = store.lookup("k", in: .session("visitor"))
        store.remove(key: "k", scope: alice)
        store.clear(domain: "cards", in: bob)

        let report = store.purgeExpired()

        #expect(report.droppedScopes == 3)
        #expect(report.scopesVisited == 3)
        #expect(store.scopes == [.shared])
        #expect(store.statistics().misses == 1)
    }

    @Test("an insert that took its generation before its scope was dropped by a purge is refused")
    func inFlightInsertAfterDrop() throws {
        let clock = ManualCacheClock()
        let store = try makeStore(clock: clock)
        store.put("v", "k", in: alice, CacheEntryMetadata(timeout: .seconds(1)))
        let generation = store.generation(of: alice)
        clock.advance(seconds: 2)

        #expect(store.purgeExpired().droppedScopes == 1)

        #expect(store.put("late", "k", in: alice, ifGeneration: generation) == .rejectedStaleGeneration)
        #expect(store.entryCount(in: alice) == 0)
    }

    @Test("purging one scope costs what it removes and keeps the scope for the next full purge")
    func purgeOneScopeIndexed() throws {
        let clock = ManualCacheClock()
        let store = try makeStore(clock: clock)
        store.put("v", "a", in: alice, CacheEntryMetadata(timeout: .seconds(1)))
        store.put("v", "b", in: alice, CacheEntryMetadata(timeout: .seconds(50)))
        clock.advance(seconds: 2)

        #expect(store.purgeExpired(in: alice).entries == 1)
        #expect(store.keys(in: alice) == ["b"])
        #expect(store.purgeExpired().entries == 0)
        clock.advance(seconds: 60)
        let report = store.purgeExpired()
        #expect(report.entries == 1)
        #expect(report.droppedScopes == 1)
    }

    @Test("rewriting one key many times keeps the expiry index bounded and purges only the live value")
    func rewritesStayBounded() throws {
        let clock = ManualCacheClock()
        let store = try makeStore(clock: clock)
        for round in 0..<5_000 {
            store.put("v\(round)", "k", in: alice, CacheEntryMetadata(timeout: .seconds(Double(10 + round % 7))))
        }
        clock.advance(seconds: 100)

        let report = store.purgeExpired()

        #expect(report.entries == 1)
        #expect(report.droppedScopes == 1)
        #expect(store.statistics().expirations == 1)
    }

    @Test("purges running while tasks insert, read and clear keep the budget equal to what is held")
    func concurrentPurges() async throws {
        let clock = ManualCacheClock()
        let budget = try MemoryBudget(limit: 1 << 30)
        let recorder = EventRecorder()
        let store = try makeStore(clock: clock, budget: budget, observer: recorder) { $0.entryOverhead = 16 }
        let scopes = (0..<40).map { CacheScope.session("s\($0)") }

        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<6 {
                group.addTask {
                    var generator = SplitMix(seed: UInt64(worker) + 100)
                    for step in 0..<3_000 {
                        let scope = scopes[Int(generator.next() % UInt64(scopes.count))]
                        let key = "k\(generator.next() % 30)"
                        switch generator.next() % 10 {
                        case 0...4:
                            let timeout = Timeout.seconds(Double(generator.next() % 5))
                            let generation = store.generation(of: scope)
                            store.insert(
                                step, byteCost: Int(generator.next() % 100), key: key, scope: scope,
                                metadata: CacheEntryMetadata(timeout: timeout), ifGeneration: generation)
                        case 5...6:
                            _ = store.lookup(key, in: scope)
                        case 7:
                            store.refresh(key: key, scope: scope, timeout: .seconds(3))
                        case 8:
                            store.remove(key: key, scope: scope)
                        default:
                            if step % 40 == 0 {
                                store.clear(scope: scope)
                            }
                        }
                    }
                }
            }
            group.addTask {
                for _ in 0..<300 {
                    clock.advance(seconds: 0.5)
                    store.purgeExpired()
                    await Task.yield()
                }
            }
        }

        var total = 0
        for scope in scopes {
            let entries = store.entries(in: scope)
            #expect(store.statistics(for: scope).byteCount == entries.reduce(0) { $0 + $1.entry.chargedBytes })
            total += store.statistics(for: scope).byteCount
        }
        #expect(budget.usedBytes == total)
        #expect(budget.usedBytes == store.statistics().byteCount)
        let expiredEvents = recorder.events.count { event in
            if case .evicted(_, _, .expired) = event { return true }
            return false
        }
        #expect(store.statistics().expirations == expiredEvents)

        clock.advance(seconds: 10)
        store.purgeExpired()
        #expect(store.scopes.isEmpty)
        #expect(budget.usedBytes == 0)
    }
}
