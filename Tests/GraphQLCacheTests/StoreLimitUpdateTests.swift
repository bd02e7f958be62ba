import CacheCore
import GraphQLCache
import Testing

@Suite("Normalized store: changing limits at run time")
struct StoreLimitUpdateTests {

    @Test("a lower byte limit applies to the scope's next write, not before")
    func byteLimitAppliesToNextWrite() throws {
        let store = try makeNormalizedStore()
        for id in 1...20 {
            try store.writeAccount(id)
        }
        let held = store.byteCount(in: alice)

        try store.updateLimits(maxBytesPerScope: held / 2)

        #expect(store.byteCount(in: alice) == held)
        #expect(store.currentLimits.maxBytesPerScope == held / 2)
        #expect(store.configuration.maxBytesPerScope == 64 * 1024 * 1024)
        try store.writeAccount(21)
        #expect(store.byteCount(in: alice) <= held / 2)
        #expect(store.record("Account:21", in: alice) != nil)
        #expect(store.record("Account:1", in: alice) == nil)
        #expect(store.statistics(for: alice).evictions > 0)
    }

    @Test("a lower record limit applies to the next write")
    func recordLimitAppliesToNextWrite() throws {
        let store = try makeNormalizedStore()
        for id in 1...10 {
            try store.writeAccount(id)
        }

        try store.updateLimits(maxBytesPerScope: 1 << 20, maxRecordsPerScope: 4)

        #expect(store.recordCount(in: alice) == 11)
        try store.writeAccount(11)
        #expect(store.recordCount(in: alice) <= 4)
        #expect(store.currentLimits == GraphQLNormalizedStore.Limits(maxRecordsPerScope: 4, maxBytesPerScope: 1 << 20))
    }

    @Test("limits that are not positive are refused with invalidConfiguration and nothing changes")
    func invalidLimits() throws {
        let store = try makeNormalizedStore { $0.maxRecordsPerScope = 3 }
        let before = store.currentLimits
        for (bytes, records) in [(0, nil), (-1, nil), (1_000, 0), (1_000, -2)] as [(Int, Int?)] {
            let error = #expect(throws: GraphQLCacheError.self) {
                try store.updateLimits(maxBytesPerScope: bytes, maxRecordsPerScope: records)
            }
            #expect(error?.code == .invalidConfiguration)
        }
        #expect(store.currentLimits == before)
        for id in 1...5 {
            try store.writeAccount(id)
        }
        #expect(store.recordCount(in: alice) <= 3)
    }
}
