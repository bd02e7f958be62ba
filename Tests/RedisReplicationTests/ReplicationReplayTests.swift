import CacheCore
import FixtureSupport
import Foundation
import RESTCache
import Synchronization
import Testing

@testable import RedisReplication
@testable import UnifiedCache

/// Someone with access to the fleet's Redis but not its secret: listens on the channel and publishes raw bytes
/// through a connection of its own.
final class ChannelAttacker {
    let listener = RecordingReceiver()
    private let eavesdropper: RedisReplicationTransport
    private let connection: RedisConnection
    private let channel: String

    init(redisURL: String, channel: String) async throws {
        self.channel = channel
        let configuration = try redisConfiguration(url: redisURL, channel: channel)
        eavesdropper = RedisReplicationTransport(configuration: configuration)
        connection = try RedisConnection(configuration)
        eavesdropper.start(receiver: listener)
        try await waitUntil { self.listener.isSubscribed }
    }

    /// Publishes `payload` on the fleet's channel as is.
    func publish(_ payload: [UInt8]) throws {
        _ = try connection.command([Array("PUBLISH".utf8), Array(channel.utf8), payload])
    }

    func stop() async { await eavesdropper.shutdown() }
}

@Suite("Replication replay protection")
struct ReplicationReplayTests {
    private let summary = CachedGET(path: "/api/accounts", key: "accountSummary.list")

    @Test("a logout captured on the channel and replayed after the user logs in again leaves the new session alone")
    func replayedLogout() async throws {
        let fleet = try await ClockedFleet("replaylogout")
        let attacker = try await ChannelAttacker(redisURL: fleet.url, channel: fleet.channel)
        _ = fleet.alice(on: fleet.a)
        _ = fleet.alice(on: fleet.b)
        await fleet.a.endSession(id: "session-alice")
        try await waitUntil {
            (fleet.b.replicationStatistics?.applied ?? 0) == 1 && attacker.listener.payloads.count == 1
        }
        #expect(fleet.b.existingSession(id: "session-alice") == nil)
        let logout = try #require(attacker.listener.payloads.first)

        let again = fleet.alice(on: fleet.b)
        _ = try await again.rest.perform(with: summary).get()
        try attacker.publish(logout)
        try await waitUntil { fleet.b.replicationStatistics?.rejected(.replayed) == 1 }

        #expect(fleet.b.existingSession(id: "session-alice") === again)
        #expect(try await again.source(of: summary) == .cache)
        #expect(fleet.b.replicationStatistics?.applied == 1)
        #expect(fleet.b.metricsText().contains(#"ucache_replication_rejected_total{reason="replayed"} 1"#))
        await attacker.stop()
        await fleet.shutdown()
    }

    @Test("a replica with no memory of counters (restarted) never lets an old logout end a session created after it")
    func replayedLogoutOnRestartedReplica() async throws {
        let fleet = try await ClockedFleet("replayrestart")
        let attacker = try await ChannelAttacker(redisURL: fleet.url, channel: fleet.channel)
        _ = fleet.alice(on: fleet.a)
        await fleet.a.endSession(id: "session-alice", principal: VerifiedPrincipal("alice"))
        try await waitUntil { attacker.listener.payloads.count == 1 }
        let logout = try #require(attacker.listener.payloads.first)

        // A replica that never saw the logout's sender (started after it); alice logs in there 10 s later.
        let clock = ManualCacheClock(date: fleet.clockA.wallClockNow())
        let restarted = try ReplicaHarness.hub(
            tenant: fleet.tenant, redisURL: fleet.url, channel: fleet.channel, settings: SettingsStore(),
            adjust: { $0.clock = clock })
        try await ReplicaHarness.waitUntilReady(restarted)
        clock.advance(seconds: 10)
        let later = fleet.alice(on: restarted)
        _ = try await later.rest.perform(with: summary).get()
        try attacker.publish(logout)
        try await waitUntil { restarted.replicationStatistics?.rejected(.predatesSession) == 1 }
        #expect(restarted.existingSession(id: "session-alice") === later)
        #expect(try await later.source(of: summary) == .cache)

        // A logout issued after the session was created still ends it.
        fleet.clockA.advance(seconds: 10)
        _ = fleet.alice(on: fleet.a)
        await fleet.a.endSession(id: "session-alice")
        try await waitUntil { (restarted.replicationStatistics?.applied ?? 0) == 1 }
        #expect(restarted.existingSession(id: "session-alice") == nil)
        await restarted.shutdown()
        await attacker.stop()
        await fleet.shutdown()
    }

    @Test("a captured request to drop every cache, replayed in a loop or after the window, is ignored")
    func replayedDrop() async throws {
        let fleet = try await ClockedFleet("replaydrop")
        let attacker = try await ChannelAttacker(redisURL: fleet.url, channel: fleet.channel)
        let onB = fleet.alice(on: fleet.b)
        _ = try await onB.rest.perform(with: summary).get()
        // What the transport reports when its outbox overflowed: A asks every replica to drop its local entries.
        fleet.a.replication?.transportDidDropOutgoingMessages()
        try await waitUntil {
            (fleet.b.replicationStatistics?.applied ?? 0) == 1 && attacker.listener.payloads.count == 1
        }
        #expect(try await onB.source(of: summary) == .network)  // the authentic request was applied
        let drop = try #require(attacker.listener.payloads.first)

        for _ in 0..<5 { try attacker.publish(drop) }
        try await waitUntil { fleet.b.replicationStatistics?.rejected(.replayed) == 5 }
        #expect(try await onB.source(of: summary) == .cache)

        fleet.clockB.advance(seconds: 61)  // past the 60 s lifetime: refused by age whatever B remembers
        try attacker.publish(drop)
        try await waitUntil { fleet.b.replicationStatistics?.rejected(.stale) == 1 }
        #expect(try await onB.source(of: summary) == .cache)
        #expect(fleet.b.replicationStatistics?.applied == 1)
        await attacker.stop()
        await fleet.shutdown()
    }

    @Test("a clear or drop issued further ahead than the clock-skew allowance is refused; one 1 s ahead is applied")
    func issuedAheadOfTheSkewAllowance() async throws {
        let fleet = try await ClockedFleet("replayfuture")
        let onB = fleet.alice(on: fleet.b)
        _ = try await onB.rest.perform(with: summary).get()

        fleet.clockA.advance(seconds: 30)  // A's wall clock runs 30 s ahead of B's
        _ = fleet.alice(on: fleet.a)
        await fleet.a.endSession(id: "session-alice")
        try await waitUntil { fleet.b.replicationStatistics?.rejected(.future) == 1 }
        fleet.a.replication?.transportDidDropOutgoingMessages()  // a request to drop every cache: the same bound
        try await waitUntil { fleet.b.replicationStatistics?.rejected(.future) == 2 }
        #expect(fleet.b.existingSession(id: "session-alice") === onB)
        #expect(try await onB.source(of: summary) == .cache)
        #expect(fleet.b.replicationStatistics?.applied == 0)
        #expect(fleet.b.metricsText().contains(#"ucache_replication_rejected_total{reason="future"} 2"#))

        fleet.clockB.advance(seconds: 29)  // A is now 1 s ahead: within the 2 s allowance
        _ = fleet.alice(on: fleet.a)
        await fleet.a.endSession(id: "session-alice")
        try await waitUntil { (fleet.b.replicationStatistics?.applied ?? 0) == 1 }
        #expect(fleet.b.existingSession(id: "session-alice") == nil)
        #expect(fleet.b.replicationStatistics?.rejected(.future) == 2)
        await fleet.shutdown()
    }

    @Test("a logout from a sender whose clock runs 30 s ahead, replayed, never ends a session created after it")
    func replayedLogoutFromAClockAhead() async throws {
        let fleet = try await ClockedFleet("replayahead")
        let attacker = try await ChannelAttacker(redisURL: fleet.url, channel: fleet.channel)
        fleet.clockA.advance(seconds: 30)
        _ = fleet.alice(on: fleet.a)
        await fleet.a.endSession(id: "session-alice", principal: VerifiedPrincipal("alice"))
        try await waitUntil { attacker.listener.payloads.count == 1 }
        let logout = try #require(attacker.listener.payloads.first)

        // A replica that never saw the logout's sender; alice logs in there 10 s after the logout was sent.
        let clock = ManualCacheClock(date: fleet.clockB.wallClockNow())
        let restarted = try ReplicaHarness.hub(
            tenant: fleet.tenant, redisURL: fleet.url, channel: fleet.channel, settings: SettingsStore(),
            adjust: { $0.clock = clock })
        try await ReplicaHarness.waitUntilReady(restarted)
        clock.advance(seconds: 10)
        let later = fleet.alice(on: restarted)
        _ = try await later.rest.perform(with: summary).get()
        try attacker.publish(logout)
        try await waitUntil { restarted.replicationStatistics?.rejected(.future) == 1 }
        #expect(restarted.existingSession(id: "session-alice") === later)
        #expect(try await later.source(of: summary) == .cache)
        #expect(restarted.replicationStatistics?.applied == 0)
        await restarted.shutdown()
        await attacker.stop()
        await fleet.shutdown()
    }

    @Test("oversize payloads are refused before any cryptography, even authentic ones; junk and forgeries are counted")
    func oversizeAndForged() async throws {
        let events = EventLog()
        let fleet = try await ClockedFleet(
            "replayoversize",
            adjustB: { configuration in
                configuration.maximumPayloadBytes = 512
                configuration.observer = { events.append($0) }
            })
        let attacker = try await ChannelAttacker(redisURL: fleet.url, channel: fleet.channel)
        let onA = fleet.alice(on: fleet.a)
        let onB = fleet.alice(on: fleet.b)
        _ = try await onB.rest.perform(with: summary).get()

        await onA.cacheManager.clearCache(forQuery: String(repeating: "Q", count: 600))  // authentic, too large
        try await waitUntil { attacker.listener.payloads.count == 1 }
        try attacker.publish([UInt8](repeating: 0x41, count: 100_000))
        try await waitUntil { fleet.b.replicationStatistics?.rejected(.oversize) == 2 }

        try attacker.publish(Array("not a message".utf8))
        var forged = try #require(attacker.listener.payloads.first)  // A's sealed clear, re-sent with another counter
        forged[1 + 4 + 16 + 7] ^= 0x01
        forged.removeLast(forged.count - 200)
        try attacker.publish(forged)
        try await waitUntil {
            fleet.b.replicationStatistics?.rejected(.malformed) == 1
                && fleet.b.replicationStatistics?.rejected(.unauthentic) == 1
        }
        #expect(try await onB.source(of: summary) == .cache)
        #expect(fleet.b.replicationStatistics?.applied == 0)
        #expect(events.rejections == [.oversize, .oversize, .malformed, .unauthentic])
        await attacker.stop()
        await fleet.shutdown()
    }
}

/// The rejections an observer was told of, in order.
final class EventLog: Sendable {
    private let events = Mutex<[ReplicationEvent]>([])

    func append(_ event: ReplicationEvent) { events.withLock { $0.append(event) } }

    var rejections: [ReplicationRejection] {
        events.withLock { events in
            events.compactMap { event in
                if case .rejectedMessage(let reason) = event { return reason }
                return nil
            }
        }
    }
}
