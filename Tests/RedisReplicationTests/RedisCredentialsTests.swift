import FixtureSupport
import Foundation
import RedisReplication
import Testing
import UnifiedCache

@Suite("Redis AUTH is explicit; configurations keep their password to themselves")
struct RedisCredentialsTests {
    /// The error `make` throws, if any.
    private func code(_ make: () throws -> Void) -> RedisReplicationError? {
        do {
            try make()
            return nil
        } catch {
            return error as? RedisReplicationError
        }
    }

    @Test("a URL without a password is refused with a clear message unless the configuration allows it")
    func noPasswordNeedsOptOut() throws {
        let refused = try #require(code { _ = try RedisReplicationConfiguration(url: "redis://10.0.0.7:6379") })
        #expect(refused.code == .missingCredentials)
        #expect(refused.message.contains("UCACHE_REDIS_ALLOW_NO_AUTH") && !refused.message.contains("10.0.0.7"))
        #expect(code { _ = try RedisSecondLevelConfiguration(url: "redis://10.0.0.7") }?.code == .missingCredentials)

        let allowed = try RedisReplicationConfiguration(url: "redis://10.0.0.7:6379", allowsUnauthenticated: true)
        #expect(allowed.password == nil && allowed.allowsUnauthenticated)
        let environment = ["UCACHE_REDIS_URL": "redis://10.0.0.7:6379", "UCACHE_REDIS_ALLOW_NO_AUTH": "1"]
        #expect(try RedisReplicationConfiguration(environment: environment)?.allowsUnauthenticated == true)
        var unset = environment
        unset["UCACHE_REDIS_ALLOW_NO_AUTH"] = "0"
        #expect(code { _ = try RedisReplicationConfiguration(environment: unset) }?.code == .missingCredentials)
        unset["UCACHE_REDIS_ALLOW_NO_AUTH"] = "yes"
        #expect(code { _ = try RedisReplicationConfiguration(environment: unset) }?.code == .invalidURL)
        #expect(try RedisReplicationConfiguration(url: "redis://:pw@10.0.0.7").allowsUnauthenticated == false)
    }

    @Test("a user name without a password is a configuration error, opt-out or not")
    func userWithoutPassword() throws {
        for allowed in [false, true] {
            let error = try #require(
                code {
                    _ = try RedisReplicationConfiguration(url: "redis://fleet@10.0.0.7", allowsUnauthenticated: allowed)
                })
            #expect(error.code == .missingCredentials)
            #expect(error.message.contains("names a user but no password") && !error.message.contains("10.0.0.7"))
        }
    }

    @Test("a link without AUTH reaches an open Redis only with the opt-out, and reports why otherwise")
    func openRedis() async throws {
        let server = try await RedisTestServer.start(unauthenticated: true)
        defer { server.terminate() }
        #expect(server.password == nil)
        var configuration = RedisReplicationConfiguration(
            port: server.port, channel: uniqueChannel("noauth"), initialBackoff: .milliseconds(20),
            maximumBackoff: .milliseconds(200))
        let refused = RecordingReceiver()
        let closed = RedisReplicationTransport(configuration: configuration)
        closed.start(receiver: refused)
        try await waitUntil { refused.states.filter { $0 != .connecting }.count >= 2 }
        await closed.shutdown()
        #expect(!refused.states.contains(.subscribed))
        #expect(
            refused.states.contains { state in
                if case .disconnected(let reason) = state { return reason.contains("missingCredentials") }
                return false
            })

        configuration.allowsUnauthenticated = true
        let accepted = RecordingReceiver()
        let open = RedisReplicationTransport(configuration: configuration)
        open.start(receiver: accepted)
        try await waitUntil { accepted.hasSubscribed }
        await open.shutdown()
    }

    @Test("neither description, dump nor reflection shows the Redis password")
    func noPasswordThroughReflection() throws {
        let replication = try RedisReplicationConfiguration(url: "redis://fleet:p%40ss-SECRET-42@redis.internal:6380")
        let secondLevel = try RedisSecondLevelConfiguration(url: "redis://:p%40ss-SECRET-42@redis.internal:6380")
        let transport = RedisReplicationTransport(configuration: replication)
        for value in [replication as Any, secondLevel as Any, transport as Any] {
            var dumped = ""
            dump(value, to: &dumped)
            for text in [dumped, String(reflecting: value), String(describing: value)] {
                #expect(!text.contains("SECRET-42") && !text.contains("p@ss"), "the password shows in \(text)")
            }
        }
        #expect(replication.password == "p@ss-SECRET-42")
    }
}
