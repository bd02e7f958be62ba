import CacheCore
import Testing

@Suite("Clearing")
struct ClearingTests {
    /// Alice's session as a banking app would fill it; "profile" is uplifted.
    private func filledStore(observer: EventRecorder? = nil) throws -> CacheStore {
        let store = try makeStore(observer: observer)
        store.put("b1", "balances.acc1", in: alice, CacheEntryMetadata(domains: ["balances"], accounts: ["acc1"]))
        store.put("b2", "balances.acc2", in: alice, CacheEntryMetadata(domains: ["balances"], accounts: ["tok-2"]))
        store.put(
            "t1", "transactions.acc1", in: alice,
            CacheEntryMetadata(
                domains: ["transactions"],
                accounts: ["acc1"],
                entityKeys: ["Account:1"]))
        store.put(
            "p", "profile", in: alice,
            CacheEntryMetadata(
                domains: ["balances"], accounts: ["acc1"],
                isUplifted: true, entityKeys: ["Account:1"]))
        store.put("c", "cardsExperienceV3.page_1.key", in: alice, CacheEntryMetadata(domains: ["cards"]))
        store.put("b1", "balances.acc1", in: bob, CacheEntryMetadata(domains: ["balances"], accounts: ["acc1"]))
        return store
    }

    @Test("a whole-scope clear removes everything of that scope, uplifted included, and nothing elsewhere")
    func wholeScope() throws {
        let recorder = EventRecorder()
        let store = try filledStore(observer: recorder)
        let bytes = store.statistics(for: alice).byteCount

        let report = store.clear(scope: alice, reason: .logout)

        #expect(report.entries == 5)
        #expect(report.bytes == bytes)
        #expect(report.target == .scope)
        #expect(report.reason == .logout)
        #expect(store.entryCount(in: alice) == 0)
        #expect(!store.scopes.contains(alice))
        #expect(store.keys(in: bob) == ["balances.acc1"])
        #expect(recorder.events.contains(.cleared(report)))
    }

    @Test("clearing an unknown scope reports nothing removed")
    func unknownScope() throws {
        let store = try filledStore()

        let report = store.clear(scope: .session("nobody"), reason: .sessionExpired)

        #expect(report.entries == 0)
        #expect(report.bytes == 0)
        #expect(store.entryCount(in: alice) == 5)
    }

    @Test("a domain clear removes that domain's entries and keeps uplifted ones unless asked")
    func domain() throws {
        let store = try filledStore()

        let report = store.clear(domain: "balances", in: alice, reason: .mutation)

        #expect(report.entries == 2)
        #expect(report.keptUplifted == 1)
        #expect(report.target == .domain("balances"))
        #expect(store.sortedKeys(in: alice) == ["cardsExperienceV3.page_1.key", "profile", "transactions.acc1"])
        #expect(store.keys(in: bob) == ["balances.acc1"])

        let second = store.clear(domain: "balances", in: alice, includeUplifted: true, reason: .mutation)
        #expect(second.entries == 1)
        #expect(!store.sortedKeys(in: alice).contains("profile"))
    }

    @Test("an account clear finds entries recorded under the account identifier or its token")
    func account() throws {
        let store = try filledStore()

        let byId = store.clear(account: "acc1", in: alice, reason: .accountSwitch)
        let byToken = store.clear(account: "tok-2", in: alice, reason: .accountSwitch)

        #expect(byId.entries == 2)
        #expect(byId.keptUplifted == 1)
        #expect(byToken.entries == 1)
        #expect(store.sortedKeys(in: alice) == ["cardsExperienceV3.page_1.key", "profile"])
        #expect(store.keys(in: bob) == ["balances.acc1"])
    }

    @Test("an entity clear removes the entries built from that record")
    func entity() throws {
        let store = try filledStore()

        let report = store.clear(entityKey: "Account:1", in: alice, includeUplifted: true, reason: .mutation)

        #expect(report.entries == 2)
        #expect(report.keptUplifted == 0)
        #expect(store.sortedKeys(in: alice) == ["balances.acc1", "balances.acc2", "cardsExperienceV3.page_1.key"])
    }

    @Test("a key-prefix clear removes keys with that prefix only")
    func keyPrefix() throws {
        let store = try filledStore()

        let report = store.clear(keyPrefix: "balances", in: alice, reason: .userRefresh)

        #expect(report.entries == 2)
        #expect(store.sortedKeys(in: alice) == ["cardsExperienceV3.page_1.key", "profile", "transactions.acc1"])
    }

    @Test("clearUplifted removes only the uplifted entries")
    func upliftedOnly() throws {
        let store = try filledStore()

        let report = store.clearUplifted(in: alice)

        #expect(report.entries == 1)
        #expect(report.target == .uplifted)
        #expect(store.entryCount(in: alice) == 4)
        #expect(!store.sortedKeys(in: alice).contains("profile"))
    }

    @Test("a predicate clear removes what the predicate selects, keeping uplifted entries by default")
    func predicate() throws {
        let store = try filledStore()

        let report = store.clear(in: alice, reason: .settingsChanged) { key, entry in
            key.hasSuffix("acc1") || (entry.value as? String) == "p"
        }

        #expect(report.entries == 2)
        #expect(report.keptUplifted == 1)
        #expect(store.sortedKeys(in: alice) == ["balances.acc2", "cardsExperienceV3.page_1.key", "profile"])
    }

    @Test("a predicate may call back into the store because it runs outside the lock")
    func predicateReentrancy() throws {
        let store = try filledStore()

        let report = store.clear(in: alice) { key, _ in
            store.peek(key, in: alice).entry != nil && key.hasPrefix("cards")
        }

        #expect(report.entries == 1)
    }

    @Test("granular clears release their bytes from the scope and keep other counts exact")
    func bytesAfterClears() throws {
        let store = try filledStore()

        let report = store.clear(domain: "transactions", in: alice)

        let sum = store.entries(in: alice).reduce(0) { $0 + $1.entry.chargedBytes }
        #expect(store.statistics(for: alice).byteCount == sum)
        // Value and key, and the metadata's three one-element sets of short strings (64 + 24 bytes each).
        #expect(report.bytes == "t1".utf8.count + "transactions.acc1".utf8.count + 3 * (64 + 24))
    }

    @Test("clearing a domain nobody uses removes nothing and changes nothing")
    func unknownDomain() throws {
        let store = try filledStore()

        let report = store.clear(domain: "offers", in: alice)

        #expect(report.entries == 0)
        #expect(store.entryCount(in: alice) == 5)
    }

    @Test("a clear report names its target and reason but prints account identifiers as fingerprints")
    func reportDescription() throws {
        let store = try filledStore()

        let report = store.clear(account: "tok-2", in: alice, reason: .custom("support"))

        let text = String(describing: report)
        #expect(!text.contains("tok-2"))
        #expect(text.contains("custom(support)"))
        #expect(text.contains("1 entries"))
    }
}
