import FixtureSupport
import Foundation
import RESTCache
import Testing

@Suite("Sessions never see each other's data")
struct SessionIsolationTests {
    @Test("two sessions with the same key make separate upstream calls and get their own data")
    func sameKeyTwoSessions() async throws {
        let harness = try await Harness("isolation")
        let alice = harness.service(for: .alice)
        let bob = harness.service(for: .bob)
        let aliceAccounts = try await alice.perform(with: AccountsRequest()).value()
        let bobAccounts = try await bob.perform(with: AccountsRequest()).value()
        #expect(aliceAccounts.map(\.id) == ["101", "102"])
        #expect(bobAccounts.map(\.id) == ["201", "202"])
        #expect(try await harness.counters().route("GET /api/accounts") == 2)

        // Both are cached, each in its own scope.
        #expect(try await alice.perform(with: AccountsRequest()).value() == aliceAccounts)
        #expect(try await bob.perform(with: AccountsRequest()).value() == bobAccounts)
        #expect(try await harness.counters().route("GET /api/accounts") == 2)
    }

    @Test("ending one session's cache leaves the other's untouched")
    func clearingOneSession() async throws {
        let harness = try await Harness("isolationclear")
        let alice = harness.service(for: .alice)
        let bob = harness.service(for: .bob)
        _ = try await alice.perform(with: AccountsRequest()).value()
        _ = try await bob.perform(with: AccountsRequest()).value()
        CacheManager(store: harness.store, scope: .session("alice")).clearCache(reason: .logout)
        #expect(try await bob.performWithSource(with: AccountsRequest()).value().source == .cache)
        #expect(try await alice.performWithSource(with: AccountsRequest()).value().source == .network)
    }

    @Test("shared public data is stored once for every session, and fetched without credentials")
    func sharedScope() async throws {
        let harness = try await Harness("shared")
        _ = try await harness.service(for: .alice).perform(with: FeatureFlagsRequest()).value()
        let bobRead = try await harness.service(for: .bob).performWithSource(with: FeatureFlagsRequest()).value()
        #expect(bobRead.source == .cache)
        #expect(harness.store.entryCount(in: .shared) == 1)
        #expect(harness.store.entryCount(in: .session("alice")) == 0)
        #expect(try await harness.counters().route("GET /api/feature-flags") == 1)
    }

    @Test("a shared request that carries credentials is never stored in the shared scope")
    func credentialsNeverShared() async throws {
        let harness = try await Harness("sharedcreds")
        let alice = harness.service(for: .alice)
        let request = FeatureFlagsRequest(extraHeaders: ["Authorization": "Bearer token-alice"])
        _ = try await alice.perform(with: request).value()
        #expect(harness.store.entryCount(in: .shared) == 0)
        #expect(harness.store.entryCount(in: .session("alice")) == 1)
        let bobRead = try await harness.service(for: .bob).performWithSource(with: FeatureFlagsRequest()).value()
        #expect(bobRead.source == .network)
    }
}
