import CacheCore
import Synchronization
import Testing

@Suite("Process-wide memory budget")
struct MemoryBudgetTests {
    @Test("stores charge what they hold and release what they drop")
    func chargesAndReleases() throws {
        let budget = try MemoryBudget(limit: 10_000)
        let store = try makeStore(budget: budget)
        store.charge(100, "k", in: alice)
        store.charge(200, "k", in: bob)
        #expect(budget.usedBytes == 300)

        store.remove(key: "k", scope: alice)
        #expect(budget.usedBytes == 200)
        store.clear(scope: bob)
        #expect(budget.usedBytes == 0)
    }

    @Test("over the budget, the inserting scope evicts its own least recent entries first")
    func insertingScopePaysFirst() throws {
        let budget = try MemoryBudget(limit: 400)
        let store = try makeStore(budget: budget)
        store.charge(100, "b1", in: bob)
        store.charge(100, "a1", in: alice)
        store.charge(100, "a2", in: alice)
        store.charge(100, "a3", in: alice)

        store.charge(100, "a4", in: alice)

        #expect(store.sortedKeys(in: alice) == ["a2", "a3", "a4"])
        #expect(store.keys(in: bob) == ["b1"])
        #expect(budget.usedBytes == 400)
        #expect(store.statistics(for: alice).evictions == 1)
    }

    @Test("when the inserting scope cannot free enough, the scopes holding the most bytes give up the rest")
    func largestScopesPayNext() throws {
        let budget = try MemoryBudget(limit: 1_000)
        let recorder = EventRecorder()
        let store = try makeStore(budget: budget, observer: recorder)
        store.charge(100, "small", in: .session("small"))
        for index in 0..<5 {
            store.charge(100, "big\(index)", in: .session("big"))
        }
        store.charge(200, "m", in: .session("medium"))
        #expect(budget.usedBytes == 800)

        store.charge(400, "new", in: .session("newcomer"))  // 1_200 > 1_000

        #expect(budget.usedBytes <= 1_000)
        #expect(store.keys(in: .session("newcomer")) == ["new"])
        #expect(store.keys(in: .session("small")) == ["small"])
        #expect(store.keys(in: .session("medium")) == ["m"])
        #expect(store.sortedKeys(in: .session("big")) == ["big2", "big3", "big4"])
        #expect(recorder.events.contains(.evicted(scope: .session("big"), key: "big0", reason: .memoryBudget)))
    }

    @Test("two stores sharing a budget reclaim from each other")
    func storesShareBudget() throws {
        let budget = try MemoryBudget(limit: 500)
        let rest = try makeStore(budget: budget)
        let graph = try makeStore(budget: budget)
        for index in 0..<4 {
            rest.charge(100, "r\(index)", in: alice)
        }

        graph.charge(300, "g", in: alice)

        #expect(budget.usedBytes <= 500)
        #expect(graph.keys(in: alice) == ["g"])
        #expect(rest.entryCount(in: alice) == 2)
    }

    @Test("a value larger than the whole budget is refused without evicting anything")
    func largerThanBudgetRejected() throws {
        let budget = try MemoryBudget(limit: 100)
        let store = try makeStore(budget: budget)
        store.charge(50, "keep", in: alice)

        #expect(store.charge(101, "huge", in: bob) == .rejectedTooLarge)
        #expect(store.keys(in: alice) == ["keep"])
        #expect(budget.usedBytes == 50)
    }

    @Test("a store that goes away releases its bytes and drops out of the reclaimers")
    func storeDeinitReleases() throws {
        let budget = try MemoryBudget(limit: 1_000)
        var store: CacheStore? = try makeStore(budget: budget)
        store?.charge(100, "k", in: alice)
        #expect(budget.usedBytes == 100)

        store = nil

        #expect(budget.usedBytes == 0)
        budget.charge(2_000)
        #expect(budget.reclaimExcess() == 0)
        budget.release(2_000)
    }

    @Test("reclaimers are asked in order until the budget fits again")
    func customReclaimers() throws {
        let budget = try MemoryBudget(limit: 100)
        let first = FixedReclaimer(budget: budget, gives: 30)
        let second = FixedReclaimer(budget: budget, gives: 1_000)
        let third = FixedReclaimer(budget: budget, gives: 1_000)
        budget.register(first)
        budget.register(second)
        budget.register(third)
        budget.charge(200)

        let released = budget.reclaimExcess()

        #expect(released == 100)
        #expect(first.requests == [100])
        #expect(second.requests == [70])
        #expect(third.requests.isEmpty)
        #expect(!budget.isOverLimit)
    }

    @Test("a budget without a positive limit is a configuration error")
    func invalidLimit() {
        #expect(throws: CacheCoreError.self) { _ = try MemoryBudget(limit: 0) }
        do {
            _ = try MemoryBudget(limit: -5)
            Issue.record("expected an error")
        } catch {
            #expect(error.code == .invalidConfiguration)
        }
    }
}

/// Releases up to a fixed amount from the budget and remembers what it was asked for.
private final class FixedReclaimer: MemoryReclaimer {
    private let budget: MemoryBudget
    private let remaining: Mutex<Int>
    private let asked = Mutex<[Int]>([])

    init(budget: MemoryBudget, gives: Int) {
        self.budget = budget
        self.remaining = Mutex(gives)
    }

    var requests: [Int] {
        asked.withLock { $0 }
    }

    func reclaim(bytes: Int) -> Int {
        asked.withLock { $0.append(bytes) }
        let given = remaining.withLock { remaining in
            let given = min(bytes, remaining)
            remaining -= given
            return given
        }
        budget.release(given)
        return given
    }
}

extension CacheStore {
    /// Inserts a value charged exactly `bytes` (with no entry overhead configured): the key's length is subtracted.
    @discardableResult
    func charge(_ bytes: Int, _ key: String, in scope: CacheScope) -> InsertOutcome {
        insert("v", byteCost: bytes - key.utf8.count, key: key, scope: scope)
    }
}
