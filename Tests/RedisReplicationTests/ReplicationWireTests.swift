import FixtureSupport
import RedisReplication
import Testing
import UnifiedCache

@Suite("No secrets on the wire")
struct ReplicationWireTests {
    @Test("what travels through Redis holds no session id, account token, path or cached value")
    func payloadsAreOpaque() async throws {
        let fleet = try await ReplicaHarness("replwire")
        let listener = RecordingReceiver()
        let eavesdropper = RedisReplicationTransport(
            configuration: try redisConfiguration(url: fleet.redisURL, channel: fleet.channel))
        eavesdropper.start(receiver: listener)
        try await waitUntil { listener.isSubscribed }
        let aliceOnA = try fleet.session(fleet.a, .alice)
        _ = try fleet.session(fleet.b, .alice)

        await aliceOnA.cacheManager.clearCache(forAccountToken: "acct-token-SECRET-101")
        await aliceOnA.cacheManager.clearCache(forQuery: "AccountBalance")
        await aliceOnA.cacheManager.clearAllCaches()
        try await fleet.waitUntilApplied(fleet.b, 3)
        try await waitUntil { listener.payloads.count == 3 }
        await eavesdropper.shutdown()

        for payload in listener.payloads {
            let text = String(decoding: payload, as: UTF8.self)
            for secret in ["session-alice", "acct-token-SECRET-101", "AccountBalance", "logout", "origin"] {
                #expect(!text.contains(secret), "\(secret) is visible on the wire")
            }
        }
        await fleet.shutdown()
    }
}
