import CacheCore
import FixtureSupport
import Foundation

@testable import UnifiedCache

/// Two hubs on one channel whose replication clocks the test moves (one per hub), for the replay and batch suites.
struct ClockedFleet {
    let tenant: FixtureTenant
    let url: String
    let channel: String
    let clockA = ManualCacheClock(date: Date())
    let clockB = ManualCacheClock(date: Date())
    let a: CacheHub
    let b: CacheHub

    /// `adjust` applies to both hubs' replication, `adjustB` to B's after it.
    init(
        _ label: String, settings: CacheSettings = CacheSettings(),
        adjust: @escaping (inout ReplicationConfiguration) -> Void = { _ in },
        adjustB: @escaping (inout ReplicationConfiguration) -> Void = { _ in }
    ) async throws {
        tenant = try await FixtureServer.tenant(label)
        url = try await RedisTestServer.sharedURL()
        channel = uniqueChannel(label)
        let (clockA, clockB) = (clockA, clockB)
        a = try ReplicaHarness.hub(
            tenant: tenant, redisURL: url, channel: channel, settings: SettingsStore(settings: settings),
            adjust: {
                $0.clock = clockA
                adjust(&$0)
            })
        b = try ReplicaHarness.hub(
            tenant: tenant, redisURL: url, channel: channel, settings: SettingsStore(settings: settings),
            adjust: {
                $0.clock = clockB
                adjust(&$0)
                adjustB(&$0)
            })
        try await ReplicaHarness.waitUntilReady(a)
        try await ReplicaHarness.waitUntilReady(b)
    }

    func alice(on hub: CacheHub) -> CacheSession {
        hub.session(id: "session-alice", principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice"))
    }

    func shutdown() async {
        await a.shutdown()
        await b.shutdown()
    }
}
