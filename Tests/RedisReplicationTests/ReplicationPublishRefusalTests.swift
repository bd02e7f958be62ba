import CacheCore
import FixtureSupport
import Foundation
import RESTCache
import Synchronization
import Testing

@testable import RedisReplication
@testable import UnifiedCache

/// A Redis whose administrator takes PUBLISH away from the fleet's user mid-run (`ACL SETUSER … -publish`), as an
/// operator's mistake or a rotation of ACL rules would: Redis then answers each PUBLISH with NOPERM while the
/// subscription stays up.
private struct RefusingRedis {
    let server: RedisTestServer
    let admin: RedisConnection
    let channel: String

    init(_ label: String) async throws {
        server = try await RedisTestServer.start()
        admin = try RedisConnection(try RedisReplicationConfiguration(url: server.url))
        channel = uniqueChannel(label)
        try acl(["reset", "on", ">bus-pw", "resetchannels", "&\(channel)", "-@all", "+ping", "+publish", "+subscribe"])
    }

    var busURL: String { "redis://ucache-bus:bus-pw@\(server.host):\(server.port)" }

    func acl(_ rules: [String]) throws {
        let reply = try admin.command((["ACL", "SETUSER", "ucache-bus"] + rules).map { Array($0.utf8) })
        try #require(reply == .status("OK"), "ACL SETUSER: \(reply)")
    }

    func refusePublish() throws { try acl(["-publish"]) }
    func allowPublish() throws { try acl(["+publish"]) }
}

/// What a hub's observer was told.
private final class Events: Sendable {
    private let events = Mutex<[ReplicationEvent]>([])
    func append(_ event: ReplicationEvent) { events.withLock { $0.append(event) } }
    func contains(_ predicate: (ReplicationEvent) -> Bool) -> Bool { events.withLock { $0.contains(where: predicate) } }
    var refusedByRedis: Bool {
        contains { if case .linkChanged(let state) = $0 { RedisReplicationTests.refusedByRedis(state) } else { false } }
    }
}

/// A link that broke because Redis answered NOPERM.
private func refusedByRedis(_ state: ReplicationLinkState) -> Bool {
    if case .disconnected(let reason) = state { return reason.contains("NOPERM") }
    return false
}

@Suite("Replication: a PUBLISH Redis answers with an error is re-sent, or becomes a drop request, never lost")
struct ReplicationPublishRefusalTests {
    private let summary = CachedGET(path: "/api/accounts", key: "accountSummary.list")

    @Test("a payload Redis refused is re-sent after reconnecting and reaches the other replica once allowed again")
    func refusedPayloadResent() async throws {
        let redis = try await RefusingRedis("refused-resent")
        defer { redis.server.terminate() }
        var configuration = try redisConfiguration(url: redis.busURL, channel: redis.channel)
        configuration.initialBackoff = .seconds(2)  // one refusal, then time to allow PUBLISH again
        configuration.maximumBackoff = .seconds(2)
        let (sender, receiver) = (RecordingReceiver(), RecordingReceiver())
        let publishing = RedisReplicationTransport(configuration: configuration)
        let subscribing = RedisReplicationTransport(
            configuration: try redisConfiguration(url: redis.server.url, channel: redis.channel))
        publishing.start(receiver: sender)
        subscribing.start(receiver: receiver)
        try await waitUntil { sender.isSubscribed && receiver.isSubscribed }

        try redis.refusePublish()
        publishing.publish([7, 7, 7])
        try await waitUntil { sender.states.contains(where: refusedByRedis) }
        #expect(!receiver.payloads.contains([7, 7, 7]))
        try redis.allowPublish()
        try await waitUntil { receiver.payloads.contains([7, 7, 7]) }
        #expect(sender.drops == 0)
        await publishing.shutdown()
        await subscribing.shutdown()
    }

    @Test("a clear Redis keeps refusing becomes a request that makes every replica drop its local entries")
    func refusedClearBecomesDropRequest() async throws {
        let redis = try await RefusingRedis("refused-drop")
        defer { redis.server.terminate() }
        let tenant = try await FixtureServer.tenant("refuseddrop")
        let (eventsA, eventsB) = (Events(), Events())
        let a = try ReplicaHarness.hub(
            tenant: tenant, redisURL: redis.busURL, channel: redis.channel, settings: SettingsStore(),
            observer: { eventsA.append($0) })
        let b = try ReplicaHarness.hub(
            tenant: tenant, redisURL: redis.server.url, channel: redis.channel, settings: SettingsStore(),
            observer: { eventsB.append($0) })
        try await ReplicaHarness.waitUntilReady(a)
        try await ReplicaHarness.waitUntilReady(b)
        func alice(on hub: CacheHub) -> CacheSession {
            hub.session(id: "session-alice", principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice"))
        }
        let onA = alice(on: a)
        let onB = alice(on: b)
        _ = try await onB.rest.perform(with: summary).get()
        #expect(try await onB.source(of: summary) == .cache)

        try redis.refusePublish()
        await onA.cacheManager.clearRESTCache()
        try await waitUntil {
            eventsA.refusedByRedis && eventsA.contains { $0 == .droppedOutgoingMessages }
        }
        #expect(b.replicationStatistics?.applied == 0)
        try redis.allowPublish()
        try await waitUntil { (b.replicationStatistics?.applied ?? 0) >= 1 }
        #expect(eventsB.contains { if case .droppedLocalEntriesOnRequest = $0 { true } else { false } })
        #expect(try await onB.source(of: summary) == .network)
        #expect(b.replicationStatistics?.gapsRecovered == 1)  // B's own link never broke
        await a.shutdown()
        await b.shutdown()
    }
}
