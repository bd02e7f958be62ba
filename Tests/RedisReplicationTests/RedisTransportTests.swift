import FixtureSupport
import Foundation
import RedisReplication
import Testing
import UnifiedCache

@Suite("Redis transport")
struct RedisTransportTests {
    @Test("a payload published on one transport reaches every subscriber of the channel, bytes intact")
    func roundTrip() async throws {
        let url = try await RedisTestServer.sharedURL()
        let channel = uniqueChannel("roundtrip")
        let (sender, listener) = (RecordingReceiver(), RecordingReceiver())
        let publisher = RedisReplicationTransport(configuration: try redisConfiguration(url: url, channel: channel))
        let subscriber = RedisReplicationTransport(configuration: try redisConfiguration(url: url, channel: channel))
        publisher.start(receiver: sender)
        subscriber.start(receiver: listener)
        try await waitUntil { sender.isSubscribed && listener.isSubscribed }

        let payload: [UInt8] = [0, 1, 2, 0xFF, 13, 10, 0]
        publisher.publish(payload)
        try await waitUntil { listener.payloads == [payload] && sender.payloads == [payload] }

        await publisher.shutdown()
        await subscriber.shutdown()
        #expect(listener.states.last == .stopped)
    }

    @Test("a transport on another channel receives nothing")
    func channelsIsolate() async throws {
        let url = try await RedisTestServer.sharedURL()
        let (sender, other) = (RecordingReceiver(), RecordingReceiver())
        let publisher = RedisReplicationTransport(
            configuration: try redisConfiguration(url: url, channel: uniqueChannel("a")))
        let elsewhere = RedisReplicationTransport(
            configuration: try redisConfiguration(url: url, channel: uniqueChannel("b")))
        publisher.start(receiver: sender)
        elsewhere.start(receiver: other)
        try await waitUntil { sender.isSubscribed && other.isSubscribed }
        publisher.publish([1, 2, 3])
        try await waitUntil { sender.payloads.count == 1 }
        // The sender's own copy arrived, so Redis has delivered the message to every subscriber of the channel.
        #expect(other.payloads.isEmpty)
        await publisher.shutdown()
        await elsewhere.shutdown()
    }

    @Test("with the right password the link subscribes; with a wrong one it reports authentication failures")
    func authentication() async throws {
        let server = try await RedisTestServer.start(password: "fleet-password-1")
        let good = RecordingReceiver()
        let authenticated = RedisReplicationTransport(
            configuration: try redisConfiguration(url: server.url, channel: uniqueChannel("auth")))
        authenticated.start(receiver: good)
        try await waitUntil { good.hasSubscribed }
        await authenticated.shutdown()

        let bad = RecordingReceiver()
        var wrong = try redisConfiguration(url: server.url, channel: uniqueChannel("auth"))
        wrong.password = "not-the-password"
        let rejected = RedisReplicationTransport(configuration: wrong)
        rejected.start(receiver: bad)
        try await waitUntil { bad.states.filter { $0 != .connecting }.count >= 2 }
        await rejected.shutdown()
        let failures = bad.states.compactMap { state -> String? in
            if case .disconnected(let reason) = state { return reason }
            return nil
        }
        #expect(!bad.states.contains(.subscribed))
        #expect(failures.allSatisfy { $0.contains("authenticationFailed") })
        #expect(failures.allSatisfy { !$0.contains("not-the-password") })
    }

    @Test("an ACL user from the URL authenticates; the same user with a wrong password does not")
    func aclUser() async throws {
        let server = try await RedisTestServer.start(password: "default-password", aclUser: ("fleet", "fleet-password"))
        let good = RecordingReceiver()
        let asUser = RedisReplicationTransport(
            configuration: try redisConfiguration(
                url: "redis://fleet:fleet-password@127.0.0.1:\(server.port)", channel: uniqueChannel("acl")))
        asUser.start(receiver: good)
        try await waitUntil { good.hasSubscribed }
        await asUser.shutdown()

        let bad = RecordingReceiver()
        let wrong = RedisReplicationTransport(
            configuration: try redisConfiguration(
                url: "redis://fleet:guess@127.0.0.1:\(server.port)", channel: uniqueChannel("acl")))
        wrong.start(receiver: bad)
        try await waitUntil { bad.states.contains { $0.description.contains("authenticationFailed") } }
        await wrong.shutdown()
        #expect(!bad.states.contains(.subscribed))
    }

    @Test("the URL parser reads user, password, host and port, and its description hides the password")
    func urlParsing() throws {
        let configuration = try RedisReplicationConfiguration(url: "redis://fleet:p%40ss@redis.internal:6380/0")
        #expect(configuration.username == "fleet")
        #expect(configuration.password == "p@ss")
        #expect(configuration.host == "redis.internal")
        #expect(configuration.port == 6380)
        #expect(!configuration.description.contains("p@ss"))
        #expect(throws: RedisReplicationError.self) { try RedisReplicationConfiguration(url: "http://redis") }
        #expect(throws: RedisReplicationError.self) { try RedisReplicationConfiguration(url: "redis://host:99999") }
    }
}
