import FixtureSupport
import Foundation
import RESTCache
import RedisReplication
import Synchronization
import Testing
import UnifiedCache

@Suite("Redis refused, killed or paused: no errors to callers, and nothing possibly cleared elsewhere is served after")
struct ReplicationOutageTests {
    private let balance = CachedGET(path: "/api/accounts/101/balance", key: "balances.101")
    private let payees = CachedGET(path: "/api/payees", key: "payees.all")

    private func isDown(_ hub: CacheHub) -> Bool {
        if case .disconnected = hub.replicationStatistics?.linkState { return true }
        return false
    }

    @Test("Redis killed: L1 keeps serving, clears succeed, the link shows down; after a restart B drops what it held")
    func killAndRestart() async throws {
        let server = try await RedisTestServer.start()
        let fleet = try await ReplicaHarness("outagekill", redisURL: server.url)
        let aliceOnA = try fleet.session(fleet.a, .alice)
        let aliceOnB = try fleet.session(fleet.b, .alice)
        _ = try await aliceOnB.rest.perform(with: balance).get()
        _ = try await aliceOnA.rest.perform(with: payees).get()

        await server.kill()
        try await waitUntil { isDown(fleet.a) && isDown(fleet.b) }
        #expect(try await aliceOnB.source(of: balance) == .cache)
        #expect(await aliceOnA.cacheManager.clearBalancesCache().succeeded)
        #expect(try await aliceOnA.source(of: payees) == .cache)
        #expect(fleet.b.metricsText().contains("ucache_replication_link_up 0"))
        #expect((fleet.b.replicationStatistics?.disconnections ?? 0) >= 1)

        try await server.restart()
        try await ReplicaHarness.waitUntilReadyCount(fleet.a, gaps: 2)
        try await ReplicaHarness.waitUntilReadyCount(fleet.b, gaps: 2)
        // B may have missed A's clear: everything it wrote before resubscribing is gone, on both replicas.
        #expect(try await aliceOnB.source(of: balance) == .network)
        #expect(try await aliceOnA.source(of: payees) == .network)
        await fleet.shutdown()
    }

    @Test("Redis paused (SIGSTOP): the link is declared lost within its timeout; after SIGCONT B drops what it held")
    func pauseAndResume() async throws {
        let server = try await RedisTestServer.start()
        let fleet = try await ReplicaHarness("outagepause", redisURL: server.url)
        let aliceOnA = try fleet.session(fleet.a, .alice)
        let aliceOnB = try fleet.session(fleet.b, .alice)
        _ = try await aliceOnB.rest.perform(with: balance).get()

        server.pause()
        try await waitUntil { isDown(fleet.b) }
        let reason = fleet.b.replicationStatistics?.linkState.description ?? ""
        #expect(reason.contains("timedOut") || reason.contains("connectionLost"), "\(reason)")
        // A clear made meanwhile returns at once and without error; B never hears of it.
        #expect(await aliceOnA.cacheManager.clearAllCaches().succeeded)
        #expect(try await aliceOnB.source(of: balance) == .cache)

        server.resume()
        try await ReplicaHarness.waitUntilReadyCount(fleet.b, gaps: 2)
        #expect(aliceOnB.cacheManager.getCacheStatistics().rest.entryCount == 0)
        await fleet.shutdown()
    }

    @Test("the observer hears the link go down and come back, and the drop after the gap with what it dropped")
    func events() async throws {
        let server = try await RedisTestServer.start()
        let tenant = try await FixtureServer.tenant("outageevents")
        let events = Mutex<[ReplicationEvent]>([])
        let hub = try ReplicaHarness.hub(
            tenant: tenant, redisURL: server.url, channel: uniqueChannel("events"), settings: SettingsStore(),
            observer: { event in events.withLock { $0.append(event) } })
        try await ReplicaHarness.waitUntilReady(hub)
        let alice = hub.session(
            id: "session-alice", principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice"))
        _ = try await alice.rest.perform(with: balance).get()

        await server.kill()
        try await waitUntil { isDown(hub) }
        try await server.restart()
        try await ReplicaHarness.waitUntilReadyCount(hub, gaps: 2)
        await hub.shutdown()

        let seen = events.withLock { $0 }
        #expect(seen.contains { if case .linkChanged(.disconnected) = $0 { true } else { false } })
        #expect(seen.filter { $0 == .linkChanged(.subscribed) }.count == 2)
        #expect(seen.contains(.droppedLocalEntriesAfterGap(entries: 1, records: 0)))
        #expect(seen.last == .linkChanged(.stopped))
    }

    @Test("Redis refused from the start: the hub serves from L1 without errors and keeps retrying")
    func refused() async throws {
        let tenant = try await FixtureServer.tenant("outagerefused")
        let nobody = "redis://:unused-password@127.0.0.1:\(try UnusedPort.find())"
        let hub = try ReplicaHarness.hub(
            tenant: tenant, redisURL: nobody, channel: uniqueChannel("refused"), settings: SettingsStore())
        try await waitUntil { (hub.replicationStatistics?.disconnections ?? 0) == 0 && isDown(hub) }
        let alice = hub.session(
            id: "session-alice", principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice"))
        _ = try await alice.rest.perform(with: balance).get()
        #expect(try await alice.source(of: balance) == .cache)
        #expect(await alice.cacheManager.clearBalancesCache().succeeded)
        #expect(try await alice.source(of: balance) == .network)
        #expect(hub.replicationStatistics?.gapsRecovered == 0)
        await hub.shutdown()
    }

    @Test("an outbox that overflows during an outage is replaced by one request that every replica drop its caches")
    func outboxOverflow() async throws {
        var configuration = try redisConfiguration(
            url: "redis://:unused-password@127.0.0.1:\(try UnusedPort.find())", channel: uniqueChannel("overflow"))
        configuration.outboxLimit = 3
        let receiver = RecordingReceiver()
        let transport = RedisReplicationTransport(configuration: configuration)
        transport.start(receiver: receiver)
        for index in 0..<3 { transport.publish([UInt8(index)]) }
        #expect(receiver.drops == 0)
        transport.publish([9])
        #expect(receiver.drops == 1)
        await transport.shutdown()
    }
}
