import CacheCore
import FixtureSupport
import Foundation
import Testing

@testable import UnifiedCache

/// The hub's sealing thread naps after handing clears over, so that the clears of a run are appended without
/// waking anybody. What must hold: a clear made during a nap leaves when the nap ends, shutdown cuts a nap short
/// and sends what it holds, a clear made after a quiet spell wakes the parked thread, and a burst from many tasks
/// still arrives whole and in order.
@Suite("Replication sealing thread: clears made while it naps wake nobody and are never left behind")
struct ReplicationSealingThreadTests {
    private static func coordinator(of hub: CacheHub) throws -> ReplicationCoordinator {
        try #require(hub.replication)
    }

    /// Waits until `coordinator`'s sealing thread is in `state`.
    private static func waitUntilSealer(_ coordinator: ReplicationCoordinator, is state: ReplicationOutbox.Sealer)
        async throws
    {
        try await waitUntil { coordinator.outbox.withLock { $0.sealer } == state }
    }

    @Test(
        "clears made while the sealing thread naps wake nobody; shutdown cuts the nap short and sends them",
        .timeLimit(.minutes(1)))
    func shutdownCutsANapShort() async throws {
        let fleet = try await ClockedFleet("sealnapshutdown") {
            $0.sealingNap = .seconds(600)
            $0.maximumClearsPerMessage = 64
        }
        let a = try Self.coordinator(of: fleet.a)
        let onA = fleet.alice(on: fleet.a)
        _ = fleet.alice(on: fleet.b)

        await onA.cacheManager.clearCache(forQuery: "q0")
        try await Self.waitUntilSealer(a, is: .napping)  // q0 sealed; the thread naps for ten minutes
        #expect(a.messagesSent.load(ordering: .relaxed) == 1)
        let wakes = a.sealingThread.wakes.load(ordering: .relaxed)
        for index in 1...20 { await onA.cacheManager.clearCache(forQuery: "q\(index)") }
        #expect(a.sealingThread.wakes.load(ordering: .relaxed) == wakes, "a clear made during a nap wakes nobody")
        #expect(a.messagesSent.load(ordering: .relaxed) == 1, "nothing is sealed during the nap")

        await fleet.a.shutdown()  // well within the time limit: the nap does not run out first
        #expect(a.messagesSent.load(ordering: .relaxed) == 2, "the twenty queued clears left as one batch")
        try await waitUntil { (fleet.b.replicationStatistics?.applied ?? 0) >= 21 }
        #expect(fleet.b.replicationStatistics?.applied == 21)
        #expect(fleet.b.replicationStatistics?.rejected == 0)
        await fleet.b.shutdown()
    }

    @Test("a clear made while the sealing thread naps leaves when the nap ends, with no other clear to wake it")
    func napEndSealsWhatWasQueued() async throws {
        let nap = Duration.milliseconds(TestTiming.milliseconds(3_000))
        let fleet = try await ClockedFleet("sealnapend") { $0.sealingNap = nap }
        let a = try Self.coordinator(of: fleet.a)
        let onA = fleet.alice(on: fleet.a)
        _ = fleet.alice(on: fleet.b)

        await onA.cacheManager.clearCache(forQuery: "q0")
        try await Self.waitUntilSealer(a, is: .napping)
        let wakes = a.sealingThread.wakes.load(ordering: .relaxed)
        await onA.cacheManager.clearCache(forQuery: "q1")
        #expect(a.sealingThread.wakes.load(ordering: .relaxed) == wakes, "the nap was not cut short")

        try await waitUntil(timeout: .seconds(20)) { (fleet.b.replicationStatistics?.applied ?? 0) >= 2 }
        #expect(a.messagesSent.load(ordering: .relaxed) == 2)
        #expect(fleet.b.replicationStatistics?.applied == 2)
        await fleet.shutdown()
    }

    @Test("a clear made after a quiet spell wakes the parked sealing thread and is sealed at once")
    func parkedThreadIsWoken() async throws {
        let fleet = try await ClockedFleet("sealpark") { $0.sealingNap = .zero }
        let a = try Self.coordinator(of: fleet.a)
        let onA = fleet.alice(on: fleet.a)
        _ = fleet.alice(on: fleet.b)

        for round in 1...3 {
            try await Self.waitUntilSealer(a, is: .parked)
            let wakes = a.sealingThread.wakes.load(ordering: .relaxed)
            await onA.cacheManager.clearCache(forQuery: "q\(round)")
            #expect(a.sealingThread.wakes.load(ordering: .relaxed) == wakes + 1)
            try await waitUntil { (fleet.b.replicationStatistics?.applied ?? 0) >= round }
        }
        #expect(a.messagesSent.load(ordering: .relaxed) == 3)
        await fleet.shutdown()
    }

    @Test(
        "a burst from many tasks, taken over several naps, arrives whole and in order per session",
        arguments: [Duration.zero, .microseconds(200), .milliseconds(2)])
    func burstOverSeveralNaps(nap: Duration) async throws {
        let users = (0..<6).map { "nap-\($0)" }
        let clearsPerSession = 30
        let fleet = try await ClockedFleet("sealburst") { $0.sealingNap = nap }
        let capture = try await ChannelAttacker(redisURL: fleet.url, channel: fleet.channel)
        let sessions = users.map {
            fleet.a.session(id: "session-\($0)", principal: VerifiedPrincipal($0), credentials: .bearer("token-\($0)"))
        }
        for user in users {
            _ = fleet.b.session(id: "session-\(user)", principal: VerifiedPrincipal(user), credentials: .bearer("t"))
        }
        await withTaskGroup(of: Void.self) { group in
            for session in sessions {
                group.addTask {
                    for index in 0..<clearsPerSession { await session.cacheManager.clearCache(forQuery: "q\(index)") }
                }
            }
        }
        let total = users.count * clearsPerSession
        try await waitUntil { (fleet.b.replicationStatistics?.applied ?? 0) >= total }
        try await waitUntil { capture.listener.payloads.count >= total }

        let (queriesBySession, counters) = try heardQueryClears(capture.listener.payloads)
        #expect(queriesBySession.count == users.count)
        let expected = (0..<clearsPerSession).map { "q\($0)" }
        for queries in queriesBySession.values { #expect(queries == expected) }
        #expect(counters == counters.sorted(), "sealed in the order they were queued")
        #expect(fleet.b.replicationStatistics?.applied == total)
        #expect(fleet.b.replicationStatistics?.rejected == 0)
        await capture.stop()
        await fleet.shutdown()
    }
}
