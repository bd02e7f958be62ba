import FixtureSupport
import Foundation
import Testing

@testable import RedisReplication

@Suite("Redis replies are parsed by a hiredis reader that refuses absurd announcements")
struct RedisReplyLimitTests {
    @Test("an array announcing 544 million elements is a protocol error, not a 4 GB allocation")
    func hugeArrayAnnouncement() async throws {
        let peer = try RawRESPPeer(answer: Array("*544444444\r\n".utf8))
        defer { peer.listener.close() }
        let configuration = peer.configuration
        let failure = try await offThePool { () -> RedisReplicationError? in
            do {
                let connection = try RedisConnection(configuration)
                _ = try connection.command([Array("PING".utf8)])
                return nil
            } catch {
                return error as? RedisReplicationError
            }
        }
        #expect(failure?.code == .protocolError)
        #expect(failure?.message.contains("\(RedisConnection.maxArrayElements)") == true)
    }

    @Test("arrays within the limit, nested, still parse through the capped reader")
    func ordinaryArrays() async throws {
        let peer = try RawRESPPeer(answer: Array("*3\r\n:1\r\n*2\r\n$2\r\nok\r\n$-1\r\n+PONG\r\n".utf8))
        defer { peer.listener.close() }
        let configuration = peer.configuration
        let reply = try await offThePool { () throws -> RedisReply in
            let connection = try RedisConnection(configuration)
            return try connection.command([Array("PING".utf8)])
        }
        #expect(reply == .array([.integer(1), .array([.string(Array("ok".utf8)), .null]), .status("PONG")]))
    }
}
