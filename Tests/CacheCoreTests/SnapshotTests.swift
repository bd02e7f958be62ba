import CacheCore
import Testing

@Suite("Snapshots for export")
struct SnapshotTests {
    @Test("entries come most recently used first with their metadata")
    func entriesInRecencyOrder() throws {
        let store = try makeStore()
        store.put("1", "a", in: alice, CacheEntryMetadata(domains: ["d"], tags: ["GetAccounts"]))
        store.put("2", "b", in: alice)
        _ = store.lookup("a", in: alice)

        let entries = store.entries(in: alice)

        #expect(entries.map(\.key) == ["a", "b"])
        #expect(entries.first?.entry.metadata.domains == ["d"])
        #expect(entries.first?.entry.metadata.tags == ["GetAccounts"])
        #expect(store.entries(in: bob).isEmpty)
    }

    @Test("scopes lists every scope that holds a partition")
    func scopesListed() throws {
        let store = try makeStore()
        store.put("v", "k", in: alice)
        store.put("v", "k", in: .shared)

        #expect(Set(store.scopes) == [alice, .shared])
        #expect(store.entryCount(in: .shared) == 1)
        #expect(store.entryCount(in: bob) == 0)
    }

    @Test("a typed value comes back as the type that was stored")
    func typedRoundTrip() throws {
        struct Balance: Sendable, Equatable {
            var accountId: String
            var minorUnits: Int64
        }
        let store = try makeStore()
        store.insert(Balance(accountId: "1", minorUnits: 1_250), byteCost: 32, key: "balance", scope: alice)

        let value = store.lookup("balance", in: alice).freshEntry?.value as? Balance

        #expect(value == Balance(accountId: "1", minorUnits: 1_250))
        #expect(store.lookup("balance", in: alice).freshEntry?.value as? String == nil)
    }
}
