import CacheCore
import Synchronization
import Testing

@Suite("Memory budget: primary and fallback reclaimers")
struct ReclaimerPriorityTests {
    @Test("a primary reclaimer is asked before the fallbacks, whatever the registration order")
    func primaryFirst() throws {
        let budget = try MemoryBudget(limit: 100)
        let log = CallLog()
        let fallback = RecordingReclaimer("fallback", budget: budget, gives: 1_000, log: log)
        let primary = RecordingReclaimer("primary", budget: budget, gives: 40, log: log)
        budget.register(fallback)
        budget.register(primary, priority: .primary)
        budget.charge(200)

        let released = budget.reclaimExcess()

        #expect(released == 100)
        #expect(log.calls == ["primary:100", "fallback:60"])
        #expect(budget.usedBytes == 100)
    }

    @Test("hasPrimaryReclaimer follows registration, unregistration and a reclaimer going away")
    func hasPrimaryFollowsRegistrations() throws {
        let budget = try MemoryBudget(limit: 100)
        let log = CallLog()
        var primary: RecordingReclaimer? = RecordingReclaimer("p", budget: budget, gives: 0, log: log)
        #expect(!budget.hasPrimaryReclaimer)
        budget.register(primary!, priority: .primary)
        #expect(budget.hasPrimaryReclaimer)
        budget.unregister(primary!)
        #expect(!budget.hasPrimaryReclaimer)
        budget.register(primary!, priority: .primary)
        budget.register(primary!)  // registering again changes the priority
        #expect(!budget.hasPrimaryReclaimer)
        budget.register(primary!, priority: .primary)

        primary = nil
        budget.charge(200)
        budget.reclaimExcess()

        #expect(!budget.hasPrimaryReclaimer)
        budget.release(200)
    }

    @Test("with a primary reclaimer the inserting scope keeps its entries and the primary frees the excess")
    func storeDoesNotSelfEvictWithPrimary() throws {
        let budget = try MemoryBudget(limit: 400)
        let store = try makeStore(budget: budget)
        let ender = SessionEnder(store: store, oldestFirst: [bob])
        budget.register(ender, priority: .primary)
        store.charge(200, "b1", in: bob)
        for index in 0..<3 {
            store.charge(100, "a\(index)", in: alice)
        }

        #expect(store.sortedKeys(in: alice) == ["a0", "a1", "a2"])
        #expect(store.entryCount(in: bob) == 0)
        #expect(ender.ended == [bob])
        #expect(store.statistics(for: alice).evictions == 0)
        #expect(budget.usedBytes == 300)
    }

    @Test("without a primary reclaimer the inserting scope still pays first")
    func storeSelfEvictsWithoutPrimary() throws {
        let budget = try MemoryBudget(limit: 400)
        let store = try makeStore(budget: budget)
        store.charge(200, "b1", in: bob)
        for index in 0..<3 {
            store.charge(100, "a\(index)", in: alice)
        }

        #expect(store.sortedKeys(in: alice) == ["a1", "a2"])
        #expect(store.keys(in: bob) == ["b1"])
        #expect(store.statistics(for: alice).evictions == 1)
    }

    @Test("when the primary frees nothing, the stores' fallback reclaim evicts the largest scopes")
    func fallbackAfterPrimaryFails() throws {
        let budget = try MemoryBudget(limit: 400)
        let store = try makeStore(budget: budget)
        let ender = SessionEnder(store: store, oldestFirst: [])
        budget.register(ender, priority: .primary)
        store.charge(100, "b0", in: bob)
        store.charge(100, "b1", in: bob)
        store.charge(100, "b2", in: bob)

        store.charge(200, "a0", in: alice)

        #expect(budget.usedBytes <= 400)
        #expect(store.keys(in: alice) == ["a0"])
        #expect(store.sortedKeys(in: bob) == ["b1", "b2"])
        #expect(store.statistics(for: bob).evictions == 1)
        withExtendedLifetime(ender) {}
    }

    @Test("the budget alternates which fallback it asks first, so no store always pays for the others")
    func fallbacksTakeTurns() throws {
        let budget = try MemoryBudget(limit: 100)
        let log = CallLog()
        let first = RecordingReclaimer("first", budget: budget, gives: 1_000, log: log)
        let second = RecordingReclaimer("second", budget: budget, gives: 1_000, log: log)
        budget.register(first)
        budget.register(second)

        budget.charge(100)
        for _ in 0..<4 {
            budget.charge(10)
            budget.reclaimExcess()
        }

        #expect(log.calls == ["first:10", "second:10", "first:10", "second:10"])
    }

    @Test("two stores sharing a budget take turns giving memory back")
    func storesTakeTurns() throws {
        let budget = try MemoryBudget(limit: 1_000)
        let one = try makeStore(budget: budget)
        let two = try makeStore(budget: budget)
        let ender = SessionEnder(store: one, oldestFirst: [])
        budget.register(ender, priority: .primary)  // frees nothing: the stores' fallbacks pay
        for index in 0..<5 {
            one.charge(100, "one\(index)", in: bob)
            two.charge(100, "two\(index)", in: bob)
        }
        #expect(budget.usedBytes == 1_000)

        for index in 0..<4 {
            one.charge(100, "new\(index)", in: alice)
        }

        #expect(budget.usedBytes == 1_000)
        #expect(one.statistics().evictions == 2)
        #expect(two.statistics().evictions == 2)
        withExtendedLifetime(ender) {}
    }

    @Test("a reclaimer that calls reclaimExcess itself gets 0 instead of recursing")
    func reentrantCallReturnsZero() throws {
        let budget = try MemoryBudget(limit: 100)
        let reentrant = ReentrantReclaimer(budget: budget)
        budget.register(reentrant, priority: .primary)
        budget.charge(150)

        let released = budget.reclaimExcess()

        #expect(released == 50)
        #expect(reentrant.innerResults == [0])
        #expect(!budget.isOverLimit)
    }
}

/// The order in which reclaimers were asked, as "name:bytes".
final class CallLog: Sendable {
    private let entries = Mutex<[String]>([])

    func append(_ entry: String) {
        entries.withLock { $0.append(entry) }
    }

    var calls: [String] {
        entries.withLock { $0 }
    }
}

/// Releases up to a fixed total from the budget and logs every request.
final class RecordingReclaimer: MemoryReclaimer {
    private let name: String
    private let budget: MemoryBudget
    private let remaining: Mutex<Int>
    private let log: CallLog

    init(_ name: String, budget: MemoryBudget, gives: Int, log: CallLog) {
        self.name = name
        self.budget = budget
        self.remaining = Mutex(gives)
        self.log = log
    }

    func reclaim(bytes: Int) -> Int {
        log.append("\(name):\(bytes)")
        let given = remaining.withLock { remaining in
            let given = min(bytes, remaining)
            remaining -= given
            return given
        }
        budget.release(given)
        return given
    }
}

/// A primary reclaimer like a session registry's: ends whole sessions, least recently used first, by clearing
/// their scope in the store (which releases the bytes).
final class SessionEnder: MemoryReclaimer {
    private let store: CacheStore
    private let queue: Mutex<[CacheScope]>
    private let endedScopes = Mutex<[CacheScope]>([])

    init(store: CacheStore, oldestFirst: [CacheScope]) {
        self.store = store
        self.queue = Mutex(oldestFirst)
    }

    var ended: [CacheScope] {
        endedScopes.withLock { $0 }
    }

    func reclaim(bytes: Int) -> Int {
        var released = 0
        while released < bytes, let scope = queue.withLock({ $0.isEmpty ? nil : $0.removeFirst() }) {
            released += store.clear(scope: scope, reason: .sessionExpired).bytes
            endedScopes.withLock { $0.append(scope) }
        }
        return released
    }
}

/// Calls `reclaimExcess` from inside its own reclaim, then releases what it is asked for.
private final class ReentrantReclaimer: MemoryReclaimer {
    private let budget: MemoryBudget
    private let results = Mutex<[Int]>([])

    init(budget: MemoryBudget) {
        self.budget = budget
    }

    var innerResults: [Int] {
        results.withLock { $0 }
    }

    func reclaim(bytes: Int) -> Int {
        let inner = budget.reclaimExcess()
        results.withLock { $0.append(inner) }
        budget.release(bytes)
        return bytes
    }
}

@Suite("Memory budget under concurrent inserts")
struct ConcurrentReclaimTests {
    @Test("many tasks over the budget with a session-ending primary keep the accounting exact and never deadlock")
    func concurrentInsertsWithPrimary() async throws {
        let budget = try MemoryBudget(limit: 20_000)
        let store = try makeStore(budget: budget) { $0.entryOverhead = 16 }
        let scopes = (0..<50).map { CacheScope.session("s\($0)") }
        let ender = RotatingSessionEnder(store: store, scopes: scopes)
        budget.register(ender, priority: .primary)

        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var generator = SplitMix(seed: UInt64(worker) + 31)
                    for step in 0..<2_000 {
                        let scope = scopes[Int(generator.next() % UInt64(scopes.count))]
                        store.insert(
                            step, byteCost: Int(generator.next() % 300), key: "k\(generator.next() % 40)",
                            scope: scope)
                        if step % 97 == 0 {
                            try? budget.updateLimit(step % 2 == 0 ? 20_000 : 15_000)
                        }
                    }
                }
            }
        }

        let held = scopes.reduce(0) { $0 + store.statistics(for: $1).byteCount }
        #expect(budget.usedBytes == held)
        budget.reclaimExcess()
        #expect(budget.usedBytes <= budget.limit)
        #expect(ender.endedCount > 0)
        #expect(store.statistics().evictions == 0)  // the primary ended sessions; no scope evicted entries
    }
}

/// Ends sessions in a fixed rotation, as a session LRU would under uniform traffic.
private final class RotatingSessionEnder: MemoryReclaimer {
    private let store: CacheStore
    private let scopes: [CacheScope]
    private let next = Mutex(0)

    init(store: CacheStore, scopes: [CacheScope]) {
        self.store = store
        self.scopes = scopes
    }

    var endedCount: Int {
        next.withLock { $0 }
    }

    func reclaim(bytes: Int) -> Int {
        var released = 0
        var attempts = 0
        while released < bytes, attempts < scopes.count {
            let scope = next.withLock { next in
                defer { next += 1 }
                return scopes[next % scopes.count]
            }
            released += store.clear(scope: scope, reason: .memoryPressure).bytes
            attempts += 1
        }
        return released
    }
}
