import FixtureSupport
import Foundation
import RedisReplication
import Testing

@testable import UnifiedCache

@Suite("A logout reaches the whole fleet, whichever replica it lands on")
struct FleetLogoutTests {
    private let accounts = SecondLevelGET(path: "/api/accounts", key: "accountSummary.list")
    private let alice = VerifiedPrincipal("alice")

    @Test("a logout on a replica that never held the session ends it on the others and clears its second level")
    func logoutOnAnotherReplica() async throws {
        let harness = try await SecondLevelHarness("fleet-logout", replicating: true)
        defer { Task { await harness.shutdown() } }
        _ = try await harness.session(harness.a, .alice).source(of: accounts)
        try await harness.waitForWrites(harness.a, 1)
        #expect(harness.b.existingSession(id: "session-alice") == nil)

        #expect(await harness.b.endSession(id: "session-alice", principal: alice) == nil)
        try await harness.waitUntilApplied(harness.a, 1)

        #expect(harness.a.existingSession(id: "session-alice") == nil)
        #expect(try await harness.session(harness.a, .alice).source(of: accounts).source == .network)
        #expect(try await harness.counters().route("GET /api/accounts") == 2)
        #expect(harness.b.secondLevelStatistics?.clears == 1)
    }

    @Test("a logout naming another principal leaves the session of that id, here and in the second level, alone")
    func logoutWithAnotherPrincipal() async throws {
        let harness = try await SecondLevelHarness("fleet-logout-other", replicating: true)
        defer { Task { await harness.shutdown() } }
        let session = harness.session(harness.a, .alice)
        _ = try await session.source(of: accounts)
        try await harness.waitForWrites(harness.a, 1)

        #expect(await harness.a.endSession(id: "session-alice", principal: VerifiedPrincipal("bob")) == nil)

        #expect(harness.a.existingSession(id: "session-alice") === session)
        #expect(try await session.source(of: accounts).source == .cache)
        #expect(try await harness.session(harness.b, .alice).source(of: accounts).source == .cache)
        #expect(try await harness.counters().route("GET /api/accounts") == 1)
    }

    @Test("a logout by principal on a replica that never held the session ends the principal's session elsewhere")
    func principalLogoutOnAnotherReplica() async throws {
        let harness = try await SecondLevelHarness("fleet-logout-principal", replicating: true)
        defer { Task { await harness.shutdown() } }
        let session = harness.a.session(principal: alice, credentials: .bearer(FixtureTenant.User.alice.token))
        _ = try await session.source(of: accounts)
        try await harness.waitForWrites(harness.a, 1)

        #expect(await harness.b.endSession(principal: alice) == nil)
        try await harness.waitUntilApplied(harness.a, 1)

        #expect(harness.a.existingSession(principal: alice) == nil)
        let fresh = harness.a.session(principal: alice, credentials: .bearer(FixtureTenant.User.alice.token))
        #expect(try await fresh.source(of: accounts).source == .network)
    }
}
