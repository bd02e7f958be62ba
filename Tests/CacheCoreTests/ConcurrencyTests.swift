import CacheCore
import Testing

@Suite("Concurrency")
struct ConcurrencyTests {
    @Test("many tasks on many scopes keep sizes, budget and limits consistent")
    func smoke() async throws {
        let budget = try MemoryBudget(limit: 60_000)
        let store = try makeStore(budget: budget) { configuration in
            configuration.maxEntriesPerScope = 40
            configuration.maxBytesPerScope = 4_000
            configuration.entryOverhead = 16
        }
        let scopes = (0..<24).map { CacheScope.session("s\($0)") } + [.shared]

        await withTaskGroup(of: Void.self) { group in
            for worker in 0..<16 {
                group.addTask {
                    var generator = SplitMix(seed: UInt64(worker))
                    for step in 0..<2_000 {
                        let scope = scopes[Int(generator.next() % UInt64(scopes.count))]
                        let key = "k\(generator.next() % 60)"
                        switch generator.next() % 10 {
                        case 0...3:
                            _ = store.lookup(key, in: scope)
                        case 4...6:
                            let generation = store.generation(of: scope)
                            let size = Int(generator.next() % 200)
                            store.insert(
                                step, byteCost: size, key: key, scope: scope,
                                metadata: CacheEntryMetadata(domains: ["d\(step % 3)"]),
                                ifGeneration: generation)
                        case 7:
                            store.remove(key: key, scope: scope)
                        case 8:
                            store.clear(domain: "d\(step % 3)", in: scope)
                        default:
                            if step % 50 == 0 {
                                store.clear(scope: scope, reason: .logout)
                            } else {
                                store.clear(keyPrefix: "k1", in: scope)
                            }
                        }
                    }
                }
            }
        }

        var total = 0
        for scope in scopes {
            let entries = store.entries(in: scope)
            let statistics = store.statistics(for: scope)
            #expect(statistics.byteCount == entries.reduce(0) { $0 + $1.entry.chargedBytes })
            #expect(statistics.entryCount == entries.count)
            #expect(entries.count <= 40)
            #expect(statistics.byteCount <= 4_000)
            #expect(Set(entries.map(\.key)).count == entries.count)
            total += statistics.byteCount
        }
        #expect(budget.usedBytes == total)
        #expect(budget.usedBytes <= budget.limit)
        #expect(store.statistics().byteCount == total)
    }
}
