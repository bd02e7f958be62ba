import FixtureSupport
import Foundation
import RESTCache
import Testing

@testable import UnifiedCache

/// A replica holds a small share of the fleet's sessions, so most clears it receives name a session it does not hold.
/// Without a second level it tells so from the session name's bytes and counts the clear without decoding it; a
/// clear of a session it holds is decoded and applied as before.
@Suite("A clear of a session not held here is passed over from its name alone")
struct ReplicationUnheldClearTests {
    private let balance = CachedGET(path: "/api/accounts/101/balance", key: "balances.101")
    private let summary = CachedGET(path: "/api/accounts", key: "accountSummary.list")

    @Test("a clear of a session B does not hold is counted from its name and never decoded; B's sessions keep theirs")
    func unheldSessionPassedOver() async throws {
        let fleet = try await ReplicaHarness("replunheldfast")
        let aliceOnA = try fleet.session(fleet.a, .alice)
        let bobOnB = try fleet.session(fleet.b, .bob)
        _ = try await bobOnB.rest.perform(with: summary).get()

        await aliceOnA.cacheManager.clearBalancesCache()
        await aliceOnA.cacheManager.clearAllCaches()
        try await waitUntil { (fleet.b.replicationStatistics?.unknownSession ?? 0) == 2 }

        #expect(fleet.b.replication?.undecodedUnheldClears == 2)
        #expect(fleet.b.replicationStatistics?.applied == 0)
        #expect(try await bobOnB.source(of: summary) == .cache)
        await fleet.shutdown()
    }

    @Test("a clear of a session B holds is decoded and applied, not passed over")
    func heldSessionApplied() async throws {
        let fleet = try await ReplicaHarness("replheldslow")
        let aliceOnA = try fleet.session(fleet.a, .alice)
        let aliceOnB = try fleet.session(fleet.b, .alice)
        let bobOnB = try fleet.session(fleet.b, .bob)
        _ = try await aliceOnB.rest.perform(with: balance).get()
        _ = try await aliceOnB.rest.perform(with: summary).get()
        _ = try await bobOnB.rest.perform(with: summary).get()

        await aliceOnA.cacheManager.clearBalancesCache()
        try await fleet.waitUntilApplied(fleet.b, 1)

        #expect(fleet.b.replication?.undecodedUnheldClears == 0)
        #expect(fleet.b.replicationStatistics?.unknownSession == 0)
        #expect(try await aliceOnB.source(of: balance) == .network)
        #expect(try await aliceOnB.source(of: summary) == .cache, "only the balances domain goes")
        #expect(try await bobOnB.source(of: summary) == .cache)
        await fleet.shutdown()
    }

    @Test("a session B held and ended is not held any more: its clears are passed over too")
    func endedSessionPassedOver() async throws {
        let fleet = try await ReplicaHarness("replendedfast")
        let aliceOnA = try fleet.session(fleet.a, .alice)
        let aliceOnB = try fleet.session(fleet.b, .alice)
        _ = try await aliceOnB.rest.perform(with: balance).get()
        await aliceOnA.cacheManager.clearBalancesCache()
        try await fleet.waitUntilApplied(fleet.b, 1)

        _ = await fleet.b.endSession(id: "session-alice")
        try await fleet.waitUntilApplied(fleet.a, 1)  // the end reaches A too: alice starts again there
        try await fleet.session(fleet.a, .alice).cacheManager.clearBalancesCache()
        try await waitUntil { (fleet.b.replicationStatistics?.unknownSession ?? 0) == 1 }

        #expect(fleet.b.replication?.undecodedUnheldClears == 1)
        #expect(fleet.b.replicationStatistics?.applied == 1)
        await fleet.shutdown()
    }
}
