import CacheCore
import FixtureSupport
import Foundation
import RESTCache
import Testing

@testable import RedisReplication
@testable import UnifiedCache

/// Messages of one sender delivered out of order, as a cluster failover can (one relayed through another node
/// arrives behind a later one): the bytes a real replica sealed, captured on one channel and published on another
/// through a raw connection, the later first.
@Suite("Replication reordering: a late message of a sender is applied once, its copies refused")
struct ReplicationReorderTests {
    private let summary = CachedGET(path: "/api/accounts", key: "accountSummary.list")

    @Test("two clears of one sender, delivered in reverse order, apply once each; a re-publish of either is refused")
    func reversedPair() async throws {
        let tenant = try await FixtureServer.tenant("reorder")
        let url = try await RedisTestServer.sharedURL()
        let (sent, delivered) = (uniqueChannel("reorder-sent"), uniqueChannel("reorder-delivered"))
        let a = try ReplicaHarness.hub(tenant: tenant, redisURL: url, channel: sent, settings: SettingsStore())
        let b = try ReplicaHarness.hub(tenant: tenant, redisURL: url, channel: delivered, settings: SettingsStore())
        try await ReplicaHarness.waitUntilReady(a)
        try await ReplicaHarness.waitUntilReady(b)
        let capture = try await ChannelAttacker(redisURL: url, channel: sent)
        let relay = try await ChannelAttacker(redisURL: url, channel: delivered)
        func alice(on hub: CacheHub) -> CacheSession {
            hub.session(id: "session-alice", principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice"))
        }
        let onA = alice(on: a)
        let onB = alice(on: b)

        await onA.cacheManager.clearRESTCache()  // first (counter n): drops alice's REST answers
        await onA.cacheManager.clearGraphQLCache()  // second (counter n + 1)
        try await waitUntil { capture.listener.payloads.count == 2 }
        let (first, second) = (capture.listener.payloads[0], capture.listener.payloads[1])

        try relay.publish(second)
        try await waitUntil { (b.replicationStatistics?.applied ?? 0) == 1 }
        _ = try await onB.rest.perform(with: summary).get()
        #expect(try await onB.source(of: summary) == .cache)
        try relay.publish(first)  // late, but inside the window: applied
        try await waitUntil { (b.replicationStatistics?.applied ?? 0) == 2 }
        #expect(try await onB.source(of: summary) == .network)

        try relay.publish(first)
        try relay.publish(second)
        try await waitUntil { b.replicationStatistics?.rejected(.replayed) == 2 }
        #expect(b.replicationStatistics?.applied == 2)
        #expect(try await onB.source(of: summary) == .cache)  // neither copy cleared again
        await capture.stop()
        await relay.stop()
        await a.shutdown()
        await b.shutdown()
    }
}
