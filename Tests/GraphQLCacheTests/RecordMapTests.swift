import CacheCore
import Testing

@testable import GraphQLCache

@Suite("Normalized store: the record map of small and large scopes")
struct RecordMapTests {
    private func record(_ key: String) -> NormalizedRecord {
        NormalizedRecord(
            key: key, typename: nil, fields: RecordFields(), byteCount: 0, lastUse: 0,
            lastWrite: CacheInstant(nanoseconds: 0))
    }

    private func keys(_ map: RecordMap) -> Set<String> {
        Set(map.map(\.key))
    }

    @Test("records are found, listed and removed the same below, past and back under the array limit")
    func growsAndShrinks() {
        var map = RecordMap()
        let all = (0..<20).map { "Account:\($0)-with-a-key-longer-than-fifteen-bytes" }
        for (index, key) in all.enumerated() {
            map.insert(record(key))
            #expect(map.count == index + 1)
            #expect(keys(map) == Set(all[...index]))
            #expect(all[...index].allSatisfy { map[$0]?.key == $0 })
            #expect(map[all[19] + "?"] == nil)
        }
        for (index, key) in all.enumerated().reversed() {
            #expect(map.removeValue(forKey: key)?.key == key)
            #expect(map.removeValue(forKey: key) == nil)
            #expect(map.count == index)
            #expect(keys(map) == Set(all[..<index]))
            #expect(all[..<index].allSatisfy { map[$0]?.key == $0 })
            #expect(map[key] == nil)
        }
        #expect(map.isEmpty)
    }

    @Test("reads hit every record of a scope growing past eight records and shrinking under four by purges")
    func readsAcrossTheLimit() throws {
        let clock = ManualCacheClock(instant: CacheInstant(nanoseconds: 0))
        let store = try makeNormalizedStore(clock: clock)
        let balance = try prepare(BankOperations.balance)
        for id in 0..<12 {
            try store.writeAccount(id)
            clock.advance(seconds: 1)
        }
        for id in 0..<12 {
            #expect(
                try store.hitData(balance, variables: ["id": .string("\(id)")])["account"]?["balance"]
                    == .int(Int64(id)))
        }

        store.purgeRecords(writtenBefore: CacheInstant(nanoseconds: 9_500_000_000))

        #expect(store.recordCount(in: alice) == 3)
        for id in 0..<10 {
            _ = try store.miss(balance, variables: ["id": .string("\(id)")])
        }
        for id in 10..<12 {
            #expect(
                try store.hitData(balance, variables: ["id": .string("\(id)")])["account"]?["balance"]
                    == .int(Int64(id)))
        }
        #expect(store.statistics(for: alice).expirations == 10)
    }
}
