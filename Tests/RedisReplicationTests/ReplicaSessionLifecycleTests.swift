import CacheCore
import FixtureSupport
import Foundation
import RESTCache
import Testing
import UnifiedCache

@Suite("Session endings across replicas")
struct ReplicaSessionLifecycleTests {
    private let summary = CachedGET(path: "/api/accounts", key: "accountSummary.list")

    private static func limits(idle: Double = 1_800, maxSessions: Int = 100) -> @Sendable () throws -> SettingsStore {
        {
            try SettingsStore(
                settings: CacheSettings(sessions: .init(idleTimeoutSeconds: idle, maxSessions: maxSessions)))
        }
    }

    @Test("a session id presented on A with another principal ends the first principal's session on B too")
    func principalChangeEndsEverywhere() async throws {
        let fleet = try await ReplicaHarness("replprincipal")
        _ = try fleet.session(fleet.a, .alice)
        let aliceOnB = try fleet.session(fleet.b, .alice)
        _ = try await aliceOnB.rest.perform(with: summary).get()

        _ = fleet.a.session(id: "session-alice", principal: VerifiedPrincipal("mallory"), credentials: .none)
        try await fleet.waitUntilApplied(fleet.b, 1)

        #expect(fleet.b.existingSession(id: "session-alice") == nil)
        #expect(fleet.b.restStore.entryCount(in: aliceOnB.scope) == 0)
        #expect(fleet.b.sessionStatistics().ended(.principalChanged) == 1)
        await fleet.shutdown()
    }

    @Test("a session that expires on A ends on B; the same id under another principal on B is left alone")
    func expiryEndsEverywhere() async throws {
        let fleet = try await ReplicaHarness("replexpiry", settings: Self.limits(idle: 60))
        _ = try fleet.session(fleet.a, .alice)
        let aliceOnB = try fleet.session(fleet.b, .alice)
        let carolOnB = fleet.b.session(id: "session-carol", principal: VerifiedPrincipal("carol"), credentials: .none)
        _ = fleet.a.session(id: "session-carol", principal: VerifiedPrincipal("not-carol"), credentials: .none)
        _ = try await aliceOnB.rest.perform(with: summary).get()

        let clockOfA = try #require(fleet.a.clock as? ManualCacheClock)
        clockOfA.advance(seconds: 60)
        #expect(await fleet.a.expireIdleSessions() == 2)
        try await waitUntil { (fleet.b.replicationStatistics?.unknownSession ?? 0) >= 1 }
        try await fleet.waitUntilApplied(fleet.b, 1)

        #expect(fleet.b.existingSession(id: "session-alice") == nil)
        #expect(fleet.b.existingSession(id: "session-carol") === carolOnB)
        await fleet.shutdown()
    }

    @Test("a session evicted from A for A's own bound stays on B with its data")
    func evictionStaysLocal() async throws {
        let fleet = try await ReplicaHarness("replevict", settings: Self.limits(maxSessions: 2))
        _ = try fleet.session(fleet.a, .alice)
        let aliceOnB = try fleet.session(fleet.b, .alice)
        _ = try await aliceOnB.rest.perform(with: summary).get()
        let carolOnA = fleet.a.session(id: "session-carol", principal: VerifiedPrincipal("carol"), credentials: .none)
        _ = fleet.b.session(id: "session-carol", principal: VerifiedPrincipal("carol"), credentials: .none)
        _ = try fleet.session(fleet.a, .bob)  // A's third session: alice, the least recent, is evicted on A
        #expect(fleet.a.existingSession(id: "session-alice") == nil)

        await carolOnA.cacheManager.clearAllCaches()  // a clear B applies, after anything A sent before it
        try await fleet.waitUntilApplied(fleet.b, 1)

        #expect(fleet.b.existingSession(id: "session-alice") === aliceOnB)
        #expect(try await aliceOnB.source(of: summary) == .cache)
        #expect(fleet.b.replicationStatistics?.applied == 1)
        await fleet.shutdown()
    }
}
