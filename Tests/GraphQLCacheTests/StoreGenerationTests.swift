import CacheCore
import GraphQLCache
import Testing

@Suite("Normalized store: generations (no write after clear)")
struct StoreGenerationTests {
    private func write(
        _ store: GraphQLNormalizedStore,
        in scope: CacheScope = alice,
        generation: CacheGeneration?
    ) throws -> GraphQLWriteOutcome {
        try store.write(
            try prepare(BankOperations.accounts),
            data: try jsonObject(BankOperations.accountsData),
            in: scope,
            ifGeneration: generation
        )
    }

    private func isRefused(_ outcome: GraphQLWriteOutcome) -> Bool {
        if case .rejectedStaleGeneration = outcome {
            return true
        }
        return false
    }

    @Test("an answer that started before a clear is not stored after it")
    func writeAfterClearIsRefused() throws {
        let store = try makeNormalizedStore()
        #expect(try write(store, generation: nil).changes != nil)
        let generation = store.generation(of: alice)

        store.clear(scope: alice, reason: .logout)

        #expect(isRefused(try write(store, generation: generation)))
        #expect(store.recordCount(in: alice) == 0)
        #expect(try write(store, generation: store.generation(of: alice)).changes != nil)
    }

    @Test("a generation taken while the scope had no records is refused after a clear too")
    func generationWithoutPartition() throws {
        let store = try makeNormalizedStore()
        let generation = store.generation(of: alice)
        store.clear(scope: alice)
        #expect(isRefused(try write(store, generation: generation)))
        #expect(store.recordCount(in: alice) == 0)
    }

    @Test("pattern and type-wide evictions are clears; single removals are not")
    func whichEvictionsMoveTheGeneration() throws {
        let store = try makeNormalizedStore()
        _ = try write(store, generation: nil)

        let beforeRemove = store.generation(of: alice)
        store.removeRecord("Account:101", in: alice)
        store.evictField("name", ofRecord: "Account:102", in: alice)
        store.collectGarbage(in: alice)
        #expect(try write(store, generation: beforeRemove).changes != nil)

        let beforePattern = store.generation(of: alice)
        try store.removeRecords(matching: "Account:*", in: alice)
        #expect(isRefused(try write(store, generation: beforePattern)))

        let beforeField = store.generation(of: alice)
        try store.evictField(coordinate: "Account.balance", in: alice)
        #expect(isRefused(try write(store, generation: beforeField)))

        let beforeType = store.generation(of: alice)
        store.removeRecords(ofTypename: "Account", in: alice)
        #expect(isRefused(try write(store, generation: beforeType)))
    }

    @Test("a clear of one scope does not refuse another scope's answers")
    func otherScopesUnaffected() throws {
        let store = try makeNormalizedStore()
        _ = try write(store, in: bob, generation: nil)
        let bobGeneration = store.generation(of: bob)
        store.clear(scope: alice)
        #expect(try write(store, in: bob, generation: bobGeneration).changes != nil)
    }
}
