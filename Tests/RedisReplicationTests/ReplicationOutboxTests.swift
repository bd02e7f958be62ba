import CacheCore
import FixtureSupport
import Foundation
import Testing

@testable import RedisReplication
@testable import UnifiedCache

/// Clears are sealed and handed to the bus by a task of the hub's own, not by the caller: what that must keep is
/// that every clear arrives, each session's in the order it was made, including clears still queued at shutdown.
@Suite("Replication outbox: clears sealed off the caller's path arrive whole and in order")
struct ReplicationOutboxTests {
    private static let users = (0..<8).map { "burst-\($0)" }
    private static let clearsPerSession = 40

    private static func session(_ user: String, on hub: CacheHub) -> CacheSession {
        hub.session(id: "session-\(user)", principal: VerifiedPrincipal(user), credentials: .bearer("token-\(user)"))
    }

    /// Every session of `sessions` clears `clearsPerSession` queries, `q0` first, each session from a task of its own.
    private static func burst(_ sessions: [CacheSession]) async {
        await withTaskGroup(of: Void.self) { group in
            for session in sessions {
                group.addTask {
                    for index in 0..<clearsPerSession { await session.cacheManager.clearCache(forQuery: "q\(index)") }
                }
            }
        }
    }

    @Test("a burst of clears from many tasks reaches the other replica whole, each session's in the order made")
    func burstArrivesInOrder() async throws {
        let fleet = try await ReplicaHarness("outboxburst")
        let capture = try await ChannelAttacker(redisURL: fleet.redisURL, channel: fleet.channel)
        let onA = Self.users.map { Self.session($0, on: fleet.a) }
        let onB = Self.users.map { Self.session($0, on: fleet.b) }
        let total = Self.users.count * Self.clearsPerSession

        await Self.burst(onA)
        #expect(fleet.a.replicationStatistics?.published == total)
        try await fleet.waitUntilApplied(fleet.b, total)
        try await waitUntil { capture.listener.payloads.count >= total }

        // The bus delivers one order to every subscriber: what the raw subscriber saw is the order B applied.
        let (queriesBySession, counters) = try heardQueryClears(capture.listener.payloads)
        #expect(queriesBySession.count == Self.users.count)
        let expected = (0..<Self.clearsPerSession).map { "q\($0)" }
        for queries in queriesBySession.values { #expect(queries == expected) }
        #expect(counters == counters.sorted(), "sealed in the order they were queued")
        #expect(Set(counters).count == total)
        #expect(fleet.b.replicationStatistics?.applied == total)
        #expect(fleet.b.replicationStatistics?.rejected == 0)
        #expect(onB.allSatisfy { fleet.b.isLive($0) })
        await capture.stop()
        await fleet.shutdown()
    }

    @Test("clears still queued when a hub shuts down are sent before its link closes")
    func shutdownSendsQueuedClears() async throws {
        let fleet = try await ReplicaHarness("outboxshutdown")
        let onA = Self.users.map { Self.session($0, on: fleet.a) }
        _ = Self.users.map { Self.session($0, on: fleet.b) }
        let total = Self.users.count * Self.clearsPerSession

        await Self.burst(onA)
        await fleet.a.shutdown()  // at once: the outbox and the transport's queue still hold most of the burst

        try await fleet.waitUntilApplied(fleet.b, total)
        #expect(fleet.b.replicationStatistics?.applied == total)
        #expect(fleet.a.replicationStatistics?.linkState == .stopped)
        await fleet.b.shutdown()
    }

    @Test(
        "with Redis paused at shutdown, queued clears are given up after the command timeout and shutdown returns",
        .timeLimit(.minutes(1)))
    func shutdownWithPausedRedisGivesUp() async throws {
        let server = try await RedisTestServer.start()
        let tenant = try await FixtureServer.tenant("outboxpaused")
        let channel = uniqueChannel("outboxpaused")
        let a = try ReplicaHarness.hub(
            tenant: tenant, redisURL: server.url, channel: channel, settings: SettingsStore())
        try await ReplicaHarness.waitUntilReady(a)
        let onA = Self.users.map { Self.session($0, on: a) }

        server.pause()
        await Self.burst(onA)
        await a.shutdown()  // flushes into a silent Redis: bounded by the command timeout, then the clears go

        #expect(a.replicationStatistics?.published == Self.users.count * Self.clearsPerSession)
        #expect(a.replicationStatistics?.linkState == .stopped)
        server.resume()
        await server.kill()
    }
}
