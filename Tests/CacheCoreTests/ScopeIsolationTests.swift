import CacheCore
import Testing

@Suite("Scope isolation")
struct ScopeIsolationTests {
    @Test("the same key in two sessions holds two independent values")
    func sameKeyTwoSessions() throws {
        let store = try makeStore()
        store.put("alice's balance", "balance", in: alice)
        store.put("bob's balance", "balance", in: bob)

        #expect(store.lookup("balance", in: alice).string == "alice's balance")
        #expect(store.lookup("balance", in: bob).string == "bob's balance")
    }

    @Test("a session never reads the shared scope's entry and the shared scope never reads a session's")
    func sharedAndSessionAreSeparate() throws {
        let store = try makeStore()
        store.put("public rates", "rates", in: .shared)
        store.put("private profile", "profile", in: alice)

        #expect(store.lookup("rates", in: alice).isMiss)
        #expect(store.lookup("profile", in: .shared).isMiss)
        #expect(store.lookup("rates", in: .shared).string == "public rates")
    }

    @Test("a session with no entries misses every key another session stored")
    func unknownSessionMisses() throws {
        let store = try makeStore()
        store.put("secret", "k", in: alice)

        #expect(store.lookup("k", in: .session("mallory")).isMiss)
        #expect(store.peek("k", in: .session("mallory")).isMiss)
    }

    @Test("session identifiers that differ only slightly are different scopes")
    func similarIdentifiersAreDistinct() throws {
        let store = try makeStore { $0.stripeCount = 1 }
        store.put("one", "k", in: .session("s1"))
        store.put("two", "k", in: .session("s1 "))

        #expect(store.lookup("k", in: .session("s1")).string == "one")
        #expect(store.lookup("k", in: .session("s1 ")).string == "two")
        #expect(store.lookup("k", in: .session("S1")).isMiss)
    }

    @Test("a scope prints a fingerprint, never the session identifier")
    func descriptionRedactsIdentifier() {
        let scope = CacheScope.session("sess-7f3a9c-secret-cookie")
        let text = String(describing: scope)

        #expect(!text.contains("secret"))
        #expect(!text.contains("7f3a9c"))
        #expect(text == String(describing: CacheScope.session("sess-7f3a9c-secret-cookie")))
        #expect(text != String(describing: CacheScope.session("another")))
        #expect(String(describing: CacheScope.shared) == "shared")
    }
}
