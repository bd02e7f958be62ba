import CacheCore
import Testing

@Suite("An entry's metadata is charged to the scope and the budget with the entry")
struct MetadataChargeTests {
    private let alice = CacheScope.session("alice")

    private func charged(_ metadata: CacheEntryMetadata) throws -> Int {
        let budget = try MemoryBudget(limit: 1 << 20)
        let store = try makeStore(budget: budget)
        store.put("v", "key", in: alice, metadata)
        let entry = try #require(store.peek("key", in: alice).entry)
        #expect(budget.usedBytes == entry.chargedBytes)
        #expect(store.statistics(for: alice).byteCount == entry.chargedBytes)
        return entry.chargedBytes
    }

    @Test("empty metadata adds nothing; each non-empty set adds its storage and a slot per element")
    func setsAreCharged() throws {
        let bare = try charged(CacheEntryMetadata())
        #expect(bare == "v".utf8.count + "key".utf8.count)
        #expect(try charged(CacheEntryMetadata(domains: ["balances"])) == bare + 64 + 24)
        #expect(try charged(CacheEntryMetadata(domains: ["balances"], accounts: ["a1", "a2"])) == bare + 88 + 112)
        #expect(try charged(CacheEntryMetadata(entityKeys: ["Account:1"], tags: ["v2"])) == bare + 2 * 88)
    }

    @Test("strings too long to be stored inline are charged their heap block; short ones are not")
    func longStringsAreCharged() throws {
        let bare = try charged(CacheEntryMetadata())
        #expect(try charged(CacheEntryMetadata(validators: CacheValidators(etag: "\"short\""))) == bare)
        // 34 bytes: the bytes and a 32-byte object header (`MemoryBudget.heapBytes(of:)`).
        let etag = "\"" + String(repeating: "e", count: 32) + "\""
        #expect(try charged(CacheEntryMetadata(validators: CacheValidators(etag: etag))) == bare + 66)
        let account = String(repeating: "t", count: 40)
        #expect(try charged(CacheEntryMetadata(accounts: [account])) == bare + 64 + 24 + 72)
    }
}
