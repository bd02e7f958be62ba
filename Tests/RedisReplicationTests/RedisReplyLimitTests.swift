import FixtureSupport
import Foundation
import Testing

@testable import RedisReplication

#if canImport(Glibc)
    import Glibc
#endif

/// A hostile "Redis" on loopback: accepts one connection and answers the first bytes it receives with `answer`,
/// then keeps the connection open (so only the reply, not a close, can end the client's wait).
private final class RawRESPPeer: Sendable {
    let listener: SilentListener

    init(answer: [UInt8]) throws {
        let listener = try SilentListener()
        self.listener = listener
        let fd = listener.descriptor
        Thread.detachNewThread {
            let client = accept(fd, nil, nil)
            guard client >= 0 else { return }
            var buffer = [UInt8](repeating: 0, count: 4096)
            _ = recv(client, &buffer, buffer.count, 0)
            _ = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            var rest = [UInt8](repeating: 0, count: 64)
            while recv(client, &rest, rest.count, 0) > 0 {}  // until the client hangs up
            _ = Glibc.close(client)
        }
    }

    var configuration: RedisReplicationConfiguration {
        RedisReplicationConfiguration(port: listener.port, allowsUnauthenticated: true, commandTimeout: .seconds(30))
    }
}

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
