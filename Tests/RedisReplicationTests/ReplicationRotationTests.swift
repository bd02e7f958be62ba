import CacheCore
import FixtureSupport
import Foundation
import RESTCache
import Testing
import UnifiedCache

@Suite("Fleet secret rotation across replicas")
struct ReplicationRotationTests {
    private static let old = "hex:" + String(repeating: "0a", count: 32)
    private static let new = "hex:" + String(repeating: "b7", count: 32)
    private let summary = CachedGET(path: "/api/accounts", key: "accountSummary.list")
    private let balance = CachedGET(path: "/api/accounts/101/balance", key: "balances.101")

    private func hub(_ tenant: FixtureTenant, _ url: String, _ channel: String, keys: [String]) throws -> CacheHub {
        let secret = try #require(
            try ReplicationSecret(environment: ["UCACHE_REPLICATION_SECRET": keys.joined(separator: ",")]))
        return try ReplicaHarness.hub(
            tenant: tenant, redisURL: url, channel: channel, settings: SettingsStore(),
            adjust: { $0.secret = secret })
    }

    private func alice(_ hub: CacheHub) -> CacheSession {
        hub.session(id: "session-alice", principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice"))
    }

    @Test("mid-rotation (A seals with the new key, B with the old) clears and logouts cross both ways; then B moves on")
    func rollingRotation() async throws {
        let tenant = try await FixtureServer.tenant("rotation")
        let url = try await RedisTestServer.sharedURL()
        let channel = uniqueChannel("rotation")
        let a = try hub(tenant, url, channel, keys: [Self.new, Self.old])
        var b = try hub(tenant, url, channel, keys: [Self.old, Self.new])
        try await ReplicaHarness.waitUntilReady(a)
        try await ReplicaHarness.waitUntilReady(b)

        // A granular clear each way.
        var onA = alice(a)
        var onB = alice(b)
        for session in [onA, onB] {
            _ = try await session.rest.perform(with: summary).get()
            _ = try await session.rest.perform(with: balance).get()
        }
        await onA.cacheManager.clearBalancesCache()
        try await waitUntil { (b.replicationStatistics?.applied ?? 0) == 1 }
        #expect(try await onB.source(of: balance) == .network)
        #expect(try await onB.source(of: summary) == .cache)
        await onB.cacheManager.clearBalancesCache()
        try await waitUntil { (a.replicationStatistics?.applied ?? 0) == 1 }
        #expect(try await onA.source(of: balance) == .network)

        // A logout each way.
        await a.endSession(id: "session-alice")
        try await waitUntil { (b.replicationStatistics?.applied ?? 0) == 2 }
        #expect(b.existingSession(id: "session-alice") == nil)
        onA = alice(a)
        onB = alice(b)
        await b.endSession(id: "session-alice")
        try await waitUntil { (a.replicationStatistics?.applied ?? 0) == 2 }
        #expect(a.existingSession(id: "session-alice") == nil)
        #expect(a.replicationStatistics?.rejected == 0 && b.replicationStatistics?.rejected == 0)

        // B restarts with the new key only; A still lists both.
        await b.shutdown()
        b = try hub(tenant, url, channel, keys: [Self.new])
        try await ReplicaHarness.waitUntilReady(b)
        onA = alice(a)
        onB = alice(b)
        _ = try await onB.rest.perform(with: summary).get()
        _ = try await onA.rest.perform(with: summary).get()
        await onA.cacheManager.clearAllCaches()
        try await waitUntil { (b.replicationStatistics?.applied ?? 0) == 1 }
        #expect(try await onB.source(of: summary) == .network)
        await b.endSession(id: "session-alice")
        try await waitUntil { (a.replicationStatistics?.applied ?? 0) == 3 }
        #expect(a.existingSession(id: "session-alice") == nil)
        await a.shutdown()
        await b.shutdown()
    }

    @Test("a replica whose ring lacks the sender's key refuses its messages and counts them")
    func foreignKey() async throws {
        let tenant = try await FixtureServer.tenant("rotationforeign")
        let url = try await RedisTestServer.sharedURL()
        let channel = uniqueChannel("rotationforeign")
        let a = try hub(tenant, url, channel, keys: [Self.new])
        let b = try hub(tenant, url, channel, keys: [Self.old])
        try await ReplicaHarness.waitUntilReady(a)
        try await ReplicaHarness.waitUntilReady(b)
        let onB = alice(b)
        _ = alice(a)
        _ = try await onB.rest.perform(with: summary).get()
        await a.endSession(id: "session-alice")
        try await waitUntil { b.replicationStatistics?.rejected(.unauthentic) == 1 }
        #expect(b.existingSession(id: "session-alice") === onB)
        #expect(try await onB.source(of: summary) == .cache)
        await a.shutdown()
        await b.shutdown()
    }
}
