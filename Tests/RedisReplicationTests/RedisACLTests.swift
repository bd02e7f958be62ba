import FixtureSupport
import Foundation
import Testing
import UnifiedCache

@testable import RedisReplication

/// A Redis whose default user is the administrator, with least-privilege users made by `ACL SETUSER` (the rules the
/// article "Operating Redis for a fleet" documents for each link).
private struct ACLRedis {
    let server: RedisTestServer
    let admin: RedisConnection

    init() async throws {
        server = try await RedisTestServer.start()
        admin = try RedisConnection(try RedisReplicationConfiguration(url: server.url))
    }

    /// Creates (or replaces) `name` with `rules`, password `password`.
    func user(_ name: String, password: String, _ rules: [String]) throws {
        let arguments = ["ACL", "SETUSER", name, "reset", "on", ">\(password)"] + rules
        let reply = try admin.command(arguments.map { Array($0.utf8) })
        try #require(reply == .status("OK"), "ACL SETUSER: \(reply)")
    }

    func url(user: String, password: String) -> String { "redis://\(user):\(password)@\(server.host):\(server.port)" }

    /// The bus's least privilege: PING, PUBLISH and SUBSCRIBE on its channel, no keys.
    static func busRules(channel: String) -> [String] {
        ["resetchannels", "&\(channel)", "-@all", "+ping", "+publish", "+subscribe"]
    }

    /// The second level's least privilege: its key prefix, the script commands, and the commands its scripts call.
    static func secondLevelRules(keyPrefix: String) -> [String] {
        [
            "~\(keyPrefix)*", "-@all", "+ping", "+script|load", "+evalsha", "+incr", "+get", "+set", "+sadd", "+pttl",
            "+pexpire", "+smembers", "+del", "+hset", "+hmget", "+role", "+wait",
        ]
    }
}

@Suite("Redis ACL users: both links work with least privilege, and a denied command is a clear error")
struct RedisACLTests {
    @Test(
        "clears travel between replicas authenticated as a user allowed only PUBLISH, SUBSCRIBE and PING on the channel"
    )
    func busAsLeastPrivilegeUser() async throws {
        let redis = try await ACLRedis()
        defer { redis.server.terminate() }
        let channel = uniqueChannel("acl")
        try redis.user("ucache-bus", password: "bus-pw", ACLRedis.busRules(channel: channel))
        let configuration = try redisConfiguration(
            url: redis.url(user: "ucache-bus", password: "bus-pw"), channel: channel)
        #expect(configuration.username == "ucache-bus")
        let (sender, receiver) = (RecordingReceiver(), RecordingReceiver())
        let publishing = RedisReplicationTransport(configuration: configuration)
        let subscribing = RedisReplicationTransport(configuration: configuration)
        publishing.start(receiver: sender)
        subscribing.start(receiver: receiver)
        try await waitUntil { sender.isSubscribed && receiver.isSubscribed }
        publishing.publish([7, 7, 7])
        try await waitUntil { receiver.payloads.contains([7, 7, 7]) }
        await publishing.shutdown()
        await subscribing.shutdown()
        #expect(!sender.states.contains { if case .disconnected = $0 { true } else { false } })
    }

    @Test("a bus user denied the channel or PUBLISH gets the server's NOPERM as the link's reason, not a hang")
    func busDenied() async throws {
        let redis = try await ACLRedis()
        defer { redis.server.terminate() }
        let channel = uniqueChannel("acl-denied")
        try redis.user("other-channel", password: "pw", ACLRedis.busRules(channel: "someone-else"))
        let wrongChannel = RecordingReceiver()
        let refused = RedisReplicationTransport(
            configuration: try redisConfiguration(
                url: redis.url(user: "other-channel", password: "pw"), channel: channel))
        refused.start(receiver: wrongChannel)
        try await waitUntil { wrongChannel.states.contains(where: Self.isNoPermission) }
        await refused.shutdown()
        #expect(!wrongChannel.hasSubscribed)

        try redis.user("no-publish", password: "pw", ["resetchannels", "&\(channel)", "-@all", "+ping", "+subscribe"])
        let silenced = RecordingReceiver()
        let transport = RedisReplicationTransport(
            configuration: try redisConfiguration(url: redis.url(user: "no-publish", password: "pw"), channel: channel))
        transport.start(receiver: silenced)
        try await waitUntil { silenced.hasSubscribed }
        transport.publish([1])
        try await waitUntil { silenced.states.contains(where: Self.isNoPermission) }
        await transport.shutdown()
    }

    @Test("the second level reads, writes and clears as a user limited to its commands and key prefix")
    func secondLevelAsLeastPrivilegeUser() async throws {
        let redis = try await ACLRedis()
        defer { redis.server.terminate() }
        var configuration = try secondLevelConfiguration(url: redis.server.url, label: "acl")
        try redis.user("ucache-l2", password: "l2-pw", ACLRedis.secondLevelRules(keyPrefix: configuration.keyPrefix))
        configuration.connection.username = "ucache-l2"
        configuration.connection.password = "l2-pw"
        let store = try await connectedStore(configuration)
        let entry = key("session-a", "entry-1")
        try await writeAndSettle(
            store, [1, 2, 3], for: entry, generation: initialGeneration, tags: [SecondLevelTag("account:1")])
        #expect(await store.read(entry, deadline: patientDeadline) == .hit([1, 2, 3], generation: initialGeneration))
        await store.clearTags([SecondLevelTag("account:1")], in: SecondLevelNamespace("session-a"))
        #expect(await store.read(entry, deadline: patientDeadline) == .miss(generation: initialGeneration))
        await store.clearNamespace(SecondLevelNamespace("session-a"))
        await store.clearAll()
        #expect(
            await store.read(entry, deadline: patientDeadline) == .miss(generation: SecondLevelGeneration(token: "1.1"))
        )
        #expect(store.statistics().errors == 0 && store.statistics().writes == 1)
        await store.shutdown()
    }

    @Test(
        "a second-level user outside its key pattern gets the server's NOPERM as the store's error, and reads answer at once"
    )
    func secondLevelDeniedKeys() async throws {
        let redis = try await ACLRedis()
        defer { redis.server.terminate() }
        var configuration = try secondLevelConfiguration(url: redis.server.url, label: "acl-keys")
        try redis.user("wrong-keys", password: "pw", ACLRedis.secondLevelRules(keyPrefix: "somewhere-else:"))
        configuration.connection.username = "wrong-keys"
        configuration.connection.password = "pw"
        let store = RedisSecondLevelStore(configuration: configuration)
        try await waitUntil { store.lastError?.description.contains("NOPERM") == true }
        #expect(!store.statistics().isConnected)
        let started = ContinuousClock.now
        #expect(await store.read(key("session-a", "entry-1"), deadline: patientDeadline) == .unavailable(.error))
        #expect(ContinuousClock.now - started < patientDeadline)
        #expect(store.statistics().errors >= 1 && store.statistics().timeouts == 0)
        await store.shutdown()
    }

    @Test("a wrong password for an ACL user is authenticationFailed, and shows neither password")
    func wrongPassword() async throws {
        let redis = try await ACLRedis()
        defer { redis.server.terminate() }
        try redis.user("ucache-bus", password: "right-pw-4711", ACLRedis.busRules(channel: "c"))
        do {
            _ = try RedisConnection(
                try RedisReplicationConfiguration(url: redis.url(user: "ucache-bus", password: "wrong-pw-0815")))
            Issue.record("a wrong password connected")
        } catch {
            #expect(error.code == .authenticationFailed)
            #expect(!error.description.contains("wrong-pw-0815") && !error.description.contains("right-pw-4711"))
        }
    }

    private static func isNoPermission(_ state: ReplicationLinkState) -> Bool {
        if case .disconnected(let reason) = state { return reason.contains("NOPERM") }
        return false
    }
}
