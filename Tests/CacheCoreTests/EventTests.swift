import CacheCore
import Synchronization
import Testing

@Suite("Events")
struct EventTests {
    @Test("lookups, inserts, evictions, removals and clears are reported in order")
    func eventsInOrder() throws {
        let clock = ManualCacheClock()
        let recorder = EventRecorder()
        let store = try makeStore(clock: clock, observer: recorder) { $0.maxEntriesPerScope = 1 }

        store.put("v", "a", in: alice, CacheEntryMetadata(timeout: .seconds(10)))
        _ = store.lookup("a", in: alice)
        clock.advance(seconds: 15)
        _ = store.lookup("a", in: alice)
        _ = store.lookup("zz", in: alice)
        store.put("w", "b", in: alice)
        store.remove(key: "b", scope: alice)
        let report = store.clear(scope: alice, reason: .logout)

        #expect(
            recorder.events == [
                .inserted(scope: alice, key: "a", chargedBytes: 2),
                .hit(scope: alice, key: "a"),
                .stale(scope: alice, key: "a", staleness: .seconds(5)),
                .miss(scope: alice, key: "zz"),
                .inserted(scope: alice, key: "b", chargedBytes: 2),
                .evicted(scope: alice, key: "a", reason: .entryLimit),
                .removed(scope: alice, key: "b"),
                .cleared(report),
            ])
    }

    @Test("replacing a value reports only the insert, not a removal")
    func replacementEvents() throws {
        let recorder = EventRecorder()
        let store = try makeStore(observer: recorder)
        store.put("v1", "k", in: alice)
        recorder.reset()

        store.put("v2", "k", in: alice)

        #expect(recorder.events == [.inserted(scope: alice, key: "k", chargedBytes: 3)])
    }

    @Test("a refused insert is reported and changes nothing")
    func rejectedInsertEvent() throws {
        let recorder = EventRecorder()
        let store = try makeStore(observer: recorder)
        let generation = store.generation(of: alice)
        store.clear(scope: alice)
        recorder.reset()

        store.put("v", "k", in: alice, ifGeneration: generation)

        #expect(recorder.events == [.rejected(scope: alice, key: "k", outcome: .rejectedStaleGeneration)])
    }

    @Test("the observer runs outside the store's locks, so it may call back into the store")
    func observerMayReenter() throws {
        let seen = Mutex<[Int]>([])
        let holder = Mutex<CacheStore?>(nil)
        let observer = ClosureCacheEventObserver { event in
            guard case .inserted(let scope, _, _) = event else { return }
            let store = holder.withLock { $0 }
            seen.withLock { $0.append(store?.entryCount(in: scope) ?? -1) }
        }
        let store = try makeStore(observer: observer) { $0.stripeCount = 1 }
        holder.withLock { $0 = store }

        store.put("v", "a", in: alice)
        store.put("v", "b", in: alice)

        #expect(seen.withLock { $0 } == [1, 2])
        holder.withLock { $0 = nil }
    }

    @Test("purged entries are reported as expired evictions")
    func purgeEvents() throws {
        let clock = ManualCacheClock()
        let recorder = EventRecorder()
        let store = try makeStore(clock: clock, observer: recorder)
        store.put("v", "a", in: alice, CacheEntryMetadata(timeout: .seconds(1)))
        clock.advance(seconds: 2)
        recorder.reset()

        store.purgeExpired()

        #expect(recorder.events == [.evicted(scope: alice, key: "a", reason: .expired)])
    }

    @Test("a store without observer works the same and has nobody to tell")
    func silentByDefault() throws {
        let recorder = EventRecorder()
        let observed = try makeStore(observer: recorder)
        let silent = try makeStore()

        for store in [observed, silent] {
            store.put("v", "k", in: alice)
            _ = store.lookup("k", in: alice)
            store.clear(scope: alice)
        }

        #expect(recorder.events.count == 3)
        #expect(silent.statistics() == observed.statistics())
    }
}
