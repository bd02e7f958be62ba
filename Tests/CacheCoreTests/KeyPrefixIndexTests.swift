import Testing

@testable import CacheCore

@Suite("Key-prefix index")
struct KeyPrefixIndexTests {
    private static let keys = [
        "cardsExperienceV3.page_1.key",
        "cardsExperienceV3.page_2.key",
        "cardsExperienceV3",
        "cardsExperienceV3Beta.page_1",
        "cards.list",
        "/api/accounts/123/balance",
        "/api/accounts/1234/balance",
        "/api/payees",
        "feed:37774:-122419:5000",
        "admin_dashboard",
        "a..b",
        "trailing.",
    ]

    private func store() throws -> CacheStore {
        let store = try makeStore()
        for key in Self.keys {
            store.put("v", key, in: alice)
        }
        store.put("v", "cardsExperienceV3.page_1.key", in: bob)
        return store
    }

    private func removed(byPrefix prefix: String) throws -> Set<String> {
        let store = try store()
        let before = Set(store.keys(in: alice))
        let report = store.clear(keyPrefix: prefix, in: alice)
        let after = Set(store.keys(in: alice))
        #expect(report.entries == before.count - after.count)
        #expect(store.keys(in: bob) == ["cardsExperienceV3.page_1.key"])
        return before.subtracting(after)
    }

    @Test(
        "a prefix ending at a separator or a segment end removes exactly the keys starting with it",
        arguments: [
            ("cardsExperienceV3.", ["cardsExperienceV3.page_1.key", "cardsExperienceV3.page_2.key"]),
            ("cardsExperienceV3.page_1", ["cardsExperienceV3.page_1.key"]),
            ("/api/accounts/123", ["/api/accounts/123/balance", "/api/accounts/1234/balance"]),
            ("/api/accounts/123/", ["/api/accounts/123/balance"]),
            ("feed:37774", ["feed:37774:-122419:5000"]),
            ("a.", ["a..b"]),
            ("trailing.", ["trailing."]),
        ])
    func onBoundary(prefix: String, expected: [String]) throws {
        #expect(try removed(byPrefix: prefix) == Set(expected))
    }

    @Test(
        "a prefix ending inside a segment still has plain hasPrefix semantics",
        arguments: [
            (
                "cardsExperienceV3",
                [
                    "cardsExperienceV3.page_1.key", "cardsExperienceV3.page_2.key", "cardsExperienceV3",
                    "cardsExperienceV3Beta.page_1",
                ]
            ),
            (
                "cardsExp",
                [
                    "cardsExperienceV3.page_1.key", "cardsExperienceV3.page_2.key", "cardsExperienceV3",
                    "cardsExperienceV3Beta.page_1",
                ]
            ),
            ("cardsExperienceV3.page_", ["cardsExperienceV3.page_1.key", "cardsExperienceV3.page_2.key"]),
            ("/api/p", ["/api/payees"]),
            ("/", ["/api/accounts/123/balance", "/api/accounts/1234/balance", "/api/payees"]),
            ("admin", ["admin_dashboard"]),
            ("nothing", []),
        ])
    func insideSegment(prefix: String, expected: [String]) throws {
        #expect(try removed(byPrefix: prefix) == Set(expected))
    }

    @Test("an empty prefix removes every key of the scope and only of the scope")
    func emptyPrefix() throws {
        #expect(try removed(byPrefix: "") == Set(Self.keys))
    }

    @Test("the tree a scope's first prefix clear builds follows the keys stored and removed after it")
    func treeBuiltOnFirstClearFollowsLaterChanges() throws {
        let store = try store()
        #expect(store.clear(keyPrefix: "admin", in: alice).entries == 1)
        store.put("v", "cardsExperienceV3.page_3.key", in: alice)
        store.put("v", "/api/accounts/99/balance", in: alice)
        #expect(store.remove(key: "cardsExperienceV3.page_1.key", scope: alice))
        let before = Set(store.keys(in: alice))
        let report = store.clear(keyPrefix: "cardsExperienceV3.page_", in: alice)
        #expect(report.entries == 2)
        #expect(
            before.subtracting(store.keys(in: alice)) == [
                "cardsExperienceV3.page_2.key", "cardsExperienceV3.page_3.key",
            ])
        #expect(store.clear(keyPrefix: "/api/accounts/9", in: alice).entries == 1)
        #expect(store.keys(in: bob) == ["cardsExperienceV3.page_1.key"])
    }

    @Test("a node hangs under the node cut before its last separator, never cut at offset zero")
    func parents() {
        #expect(KeySegmentIndex.parent(of: "cardsExperienceV3.page_1.key") == "cardsExperienceV3.page_1")
        #expect(KeySegmentIndex.parent(of: "cardsExperienceV3.page_1") == "cardsExperienceV3")
        #expect(KeySegmentIndex.parent(of: "cardsExperienceV3") == nil)
        #expect(KeySegmentIndex.parent(of: "/api/x") == "/api")
        #expect(KeySegmentIndex.parent(of: "/api") == nil)
        #expect(KeySegmentIndex.parent(of: "trailing.") == "trailing")
        #expect(KeySegmentIndex.parent(of: "") == nil)
    }

    @Test("the index agrees with a brute-force hasPrefix scan on random keys, prefixes and removals")
    func agreesWithScan() {
        var generator = SplitMix(seed: 42)
        let alphabet = Array("ab./:")
        func randomString(maxLength: Int) -> String {
            String(
                (0..<Int(generator.next() % UInt64(maxLength + 1))).map { _ in
                    alphabet[Int(generator.next() % UInt64(alphabet.count))]
                })
        }
        var index = KeySegmentIndex()
        var stored = Set<String>()
        for round in 0..<2_000 {
            let key = randomString(maxLength: 7)
            if stored.contains(key), round % 3 == 0 {
                stored.remove(key)
                index.remove(key) { stored.contains($0) }
            } else if !stored.contains(key) {
                stored.insert(key)
                index.insert(key)
            }
            let prefix = randomString(maxLength: 4)
            let found = index.keys(withPrefix: prefix) { stored.contains($0) }
            #expect(Set(found) == stored.filter { $0.hasPrefix(prefix) }, "prefix \(prefix)")
            #expect(found.count == Set(found).count)
        }
    }

    @Test("a copy of a scope's indexes keeps its own key-prefix tree when the original changes afterwards")
    func copiedIndexesStayApart() {
        var original = SecondaryIndexes()
        original.add("cards.page_1", metadata: CacheEntryMetadata())
        original.buildSegmentsIfNeeded(storedKeys: ["cards.page_1"])
        let copy = original

        original.add("cards.page_2", metadata: CacheEntryMetadata())
        original.remove("cards.page_1", metadata: CacheEntryMetadata()) { $0 == "cards.page_2" }

        let stored: Set = ["cards.page_1", "cards.page_2"]
        #expect(original.keys(for: .keyPrefix("cards."), isStored: stored.contains) == ["cards.page_2"])
        #expect(copy.keys(for: .keyPrefix("cards."), isStored: stored.contains) == ["cards.page_1"])
    }
}

/// A small deterministic generator so the randomized test is reproducible.
struct SplitMix: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
