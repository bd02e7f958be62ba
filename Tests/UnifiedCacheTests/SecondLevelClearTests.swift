import FixtureSupport
import Foundation
import RedisReplication
import Testing

@testable import UnifiedCache

@Suite("Clears reach the second level: once per clear, whatever the replica")
struct SecondLevelClearTests {
    private let accounts = SecondLevelGET(path: "/api/accounts", key: "accountSummary.list")
    private let payees = SecondLevelGET(path: "/api/payees", key: "payees.list", domains: ["payees"])

    @Test("logout on A: B misses in memory and in the second level, and the clear is applied once")
    func logout() async throws {
        let harness = try await SecondLevelHarness("l2-logout", replicating: true)
        defer { Task { await harness.shutdown() } }
        _ = try await harness.session(harness.a, .alice).source(of: accounts)
        try await harness.waitForWrites(harness.a, 1)
        #expect(try await harness.session(harness.b, .alice).source(of: accounts).source == .cache)

        await harness.a.endSession(id: "session-alice")
        try await harness.waitUntilApplied(harness.b, 1)

        #expect(try await harness.session(harness.b, .alice).source(of: accounts).source == .network)
        #expect(try await harness.counters().route("GET /api/accounts") == 2)
        #expect(harness.a.secondLevelStatistics?.clears == 1)
        #expect(harness.b.secondLevelStatistics?.clears == 0)  // B applied A's logout without clearing Redis again
    }

    @Test("a feature clear replicated to B clears B's memory only: the second level is cleared once, by A")
    func replicatedFeatureClearIsNotRepeated() async throws {
        let harness = try await SecondLevelHarness("l2-feature-once", replicating: true)
        defer { Task { await harness.shutdown() } }
        _ = try await harness.session(harness.a, .alice).source(of: payees)
        try await harness.waitForWrites(harness.a, 1)
        #expect(try await harness.session(harness.b, .alice).source(of: payees).source == .cache)

        await harness.session(harness.a, .alice).cacheManager.clearPayeesCache()
        try await harness.waitUntilApplied(harness.b, 1)

        #expect(try await harness.session(harness.b, .alice).source(of: payees).source == .network)
        #expect(harness.a.secondLevelStatistics?.clears == 1)
        #expect(harness.b.secondLevelStatistics?.clears == 0)
    }

    @Test("an uplifted entry survives a feature clear in the second level, as in memory, and goes at logout")
    func upliftedSurvivesFeatureClears() async throws {
        let harness = try await SecondLevelHarness("l2-uplifted")
        defer { Task { await harness.shutdown() } }
        let uplifted = UpliftedGET()
        let alice = harness.session(harness.a, .alice)
        _ = try await alice.rest.perform(with: uplifted).get()
        try await harness.waitForWrites(harness.a, 1)

        await alice.cacheManager.clearPayeesCache()
        #expect(
            try await harness.session(harness.b, .alice).rest.performWithSource(with: uplifted).get().source == .cache)

        await harness.a.endSession(id: "session-alice")
        await harness.b.endSession(id: "session-alice")  // B's memory (no replication here)
        #expect(
            try await harness.session(harness.b, .alice).rest.performWithSource(with: uplifted).get().source == .network
        )
    }

    @Test("a session that ends by idle expiry leaves nothing in the second level")
    func idleExpiry() async throws {
        let harness = try await SecondLevelHarness("l2-idle") {
            try SettingsStore(settings: CacheSettings(sessions: .init(idleTimeoutSeconds: 30)))
        }
        defer { Task { await harness.shutdown() } }
        _ = try await harness.session(harness.a, .alice).source(of: accounts)
        try await harness.waitForWrites(harness.a, 1)
        harness.clock.advance(seconds: 30)  // the entry (max-age 60) is still fresh

        #expect(await harness.a.expireIdleSessions() == 1)

        #expect(try await harness.session(harness.b, .alice).source(of: accounts).source == .network)
    }

    @Test("another principal on A's session id ends it in the second level too")
    func principalChange() async throws {
        let harness = try await SecondLevelHarness("l2-principal")
        defer { Task { await harness.shutdown() } }
        _ = try await harness.session(harness.a, .alice, id: "shared-device").source(of: accounts)
        try await harness.waitForWrites(harness.a, 1)

        _ = harness.session(harness.a, .bob, id: "shared-device")
        await harness.a.waitForSessionEndings()

        #expect(
            try await harness.session(harness.b, .alice, id: "shared-device").source(of: accounts).source == .network)
    }

    @Test("a feature clear removes that feature's entries and leaves the others")
    func featureClear() async throws {
        let harness = try await SecondLevelHarness("l2-feature")
        defer { Task { await harness.shutdown() } }
        let alice = harness.session(harness.a, .alice)
        _ = try await alice.source(of: accounts)
        _ = try await alice.source(of: payees)
        try await harness.waitForWrites(harness.a, 2)

        await alice.cacheManager.clearPayeesCache()

        let onB = harness.session(harness.b, .alice)
        #expect(try await onB.source(of: payees).source == .network)
        #expect(try await onB.source(of: accounts).source == .cache)
    }

    @Test("an account clear removes the entries recorded under the account, by id")
    func accountClear() async throws {
        let harness = try await SecondLevelHarness("l2-account")
        defer { Task { await harness.shutdown() } }
        let alice = harness.session(harness.a, .alice)
        let profile = SecondLevelGET(path: "/api/profile", key: "userProfile.me")
        let balance = SecondLevelGET(path: "/api/accounts/101/balance", key: "balance.101", accounts: ["101"])
        _ = try await alice.source(of: balance)
        _ = try await alice.source(of: profile)
        try await harness.waitForWrites(harness.a, 2)

        await alice.cacheManager.clearCache(forAccountId: "101")

        let onB = harness.session(harness.b, .alice)
        #expect(try await onB.source(of: balance).source == .network)
        #expect(try await onB.source(of: profile).source == .cache)  // describes no account
    }

    @Test("a successful mutation invalidates what it changed in the second level")
    func mutation() async throws {
        let harness = try await SecondLevelHarness("l2-mutation")
        defer { Task { await harness.shutdown() } }
        let alice = harness.session(harness.a, .alice)
        _ = try await alice.source(of: payees)
        _ = try await alice.source(of: accounts)
        try await harness.waitForWrites(harness.a, 2)

        _ = try await alice.rest.perform(with: AddPayee()).get()

        let onB = harness.session(harness.b, .alice)
        #expect(try await onB.source(of: payees).source == .network)
        #expect(try await onB.source(of: accounts).source == .cache)
    }

    @Test("an answer whose fetch started before a clear is not stored in the second level")
    func writeAfterClear() async throws {
        let harness = try await SecondLevelHarness("l2-generation")
        defer { Task { await harness.shutdown() } }
        try await harness.tenant.holdAnswers(route: "GET /api/accounts")
        let onA = harness.session(harness.a, .alice)
        let onB = harness.session(harness.b, .alice)
        let fetch = Task { try await onA.source(of: accounts) }
        try await waitUntil { harness.a.secondLevelStatistics?.store.answeredReads == 1 }  // A's read is done

        await onB.cacheManager.clearAllCaches()  // on B: moves the session's namespace on
        try await harness.tenant.releaseHeldAnswers()
        #expect(try await fetch.value.source == .network)
        try await harness.waitForWrites(harness.a, 1)

        #expect(harness.a.secondLevelStatistics?.store.droppedWrites == 1)
        try await harness.tenant.setLatency(milliseconds: 0)
        #expect(try await harness.session(harness.b, .alice).source(of: accounts).source == .network)
    }

    @Test("clearing the second level fleet-wide drops every session's and the shared entries")
    func clearAll() async throws {
        let harness = try await SecondLevelHarness("l2-clearall")
        defer { Task { await harness.shutdown() } }
        let flags = SecondLevelGET(path: "/api/feature-flags", key: "featureFlags.all", isShared: true)
        _ = try await harness.session(harness.a, .alice).source(of: accounts)
        _ = try await harness.session(harness.a, .bob).source(of: flags)
        try await harness.waitForWrites(harness.a, 2)

        await harness.a.clearSecondLevel()

        #expect(try await harness.session(harness.b, .alice).source(of: accounts).source == .network)
        #expect(try await harness.session(harness.b, .bob).source(of: flags).source == .network)
    }
}

/// An uplifted entry of the payees feature.
private struct UpliftedGET: RequestType {
    typealias Response = AnyJSON
    var path: String { "/api/payees" }
    var cache: RequestCache? {
        RequestCache(key: "payees.uplifted", timeout: .seconds(600), isUpliftedCache: true, domains: ["payees"])
    }
}
