import CacheCore
import GraphQLCache
import Synchronization
import Testing

@Suite("Normalized store: primary reclaimers and fallback fairness")
struct StoreReclaimerPriorityTests {

    @Test("with a primary reclaimer the writing scope keeps its records and the primary ends other sessions")
    func noSelfEvictionWithPrimary() throws {
        let budget = try MemoryBudget(limit: 4_000)
        let store = try makeNormalizedStore(budget: budget)
        let ender = GraphQLSessionEnder(store: store, oldestFirst: [bob])
        budget.register(ender, priority: .primary)
        try store.writeAccount(100, in: bob)
        var id = 1
        while ender.ended.isEmpty, id < 1_000 {
            try store.writeAccount(id)
            id += 1
        }

        #expect(ender.ended == [bob])
        #expect(store.recordCount(in: bob) == 0)
        #expect(store.statistics(for: alice).evictions == 0)
        #expect(store.recordCount(in: alice) == id)  // every account plus the query root
        #expect(budget.usedBytes == store.byteCount(in: alice))
    }

    @Test("without a primary reclaimer the same writes evict the writing scope's oldest records")
    func selfEvictionWithoutPrimary() throws {
        let budget = try MemoryBudget(limit: 4_000)
        let store = try makeNormalizedStore(budget: budget)
        try store.writeAccount(100, in: bob)
        let bobBytes = store.byteCount(in: bob)
        for id in 1...40 {
            try store.writeAccount(id)
        }

        #expect(store.byteCount(in: bob) == bobBytes)
        #expect(store.statistics(for: alice).evictions > 0)
        #expect(store.record("Account:1", in: alice) == nil)
    }

    @Test("the REST and GraphQL stores take turns when the budget falls back to them")
    func restAndGraphQLTakeTurns() throws {
        let budget = try MemoryBudget(limit: 1_000_000)
        let graphQL = try makeNormalizedStore(budget: budget)
        let rest = try CacheStore(configuration: CacheStore.Configuration(entryOverhead: 0), budget: budget)
        let ender = GraphQLSessionEnder(store: graphQL, oldestFirst: [])  // frees nothing: the stores pay
        budget.register(ender, priority: .primary)
        for id in 1...20 {
            try graphQL.writeAccount(id, in: bob)
            rest.insert("v", byteCost: 400, key: "r\(id)", scope: bob)
        }
        try budget.updateLimit(budget.usedBytes)

        for index in 0..<6 {
            rest.insert("v", byteCost: 400, key: "new\(index)", scope: alice)
        }

        #expect(budget.usedBytes <= budget.limit)
        #expect(rest.statistics(for: bob).evictions > 0)
        #expect(graphQL.statistics(for: bob).evictions > 0)
        #expect(rest.entryCount(in: alice) == 6)
        withExtendedLifetime(ender) {}
    }
}

/// A primary reclaimer that ends whole GraphQL sessions in order, as a session registry would.
final class GraphQLSessionEnder: MemoryReclaimer {
    private let store: GraphQLNormalizedStore
    private let queue: Mutex<[CacheScope]>
    private let endedScopes = Mutex<[CacheScope]>([])

    init(store: GraphQLNormalizedStore, oldestFirst: [CacheScope]) {
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
