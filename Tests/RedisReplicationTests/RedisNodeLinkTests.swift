import FixtureSupport
import Foundation
import Testing

@testable import RedisReplication

@Suite("A node link pairs each reply with the command it answers")
struct RedisNodeLinkTests {
    @Test("a reply nothing asked for drops the link with every command of the batch handed back, none lost")
    func surplusReplyLosesNoCommand() async throws {
        // A hostile peer answers two PINGs with three replies, all in one write.
        let peer = try RawRESPPeer(answer: Array("+PONG\r\n+PONG\r\n+EXTRA\r\n".utf8))
        defer { peer.listener.close() }
        let configuration = peer.configuration
        let (answered, handedBack, error) = try await offThePool {
            () throws -> (Int, Int, RedisReplicationError?) in
            let connection = try RedisConnection(configuration)
            let now = ContinuousClock.now
            let link = RedisNodeLink(
                node: RedisNodeAddress(host: configuration.host, port: configuration.port), now: now,
                backoff: .seconds(1))
            link.adopt(connection, now: now)
            let ping = RedisOwedCommand(
                what: .ping, command: RedisRoutedCommand(RedisSecondLevelCommands.ping, key: []), sentAt: now)
            try link.send(ping)
            try link.send(ping)
            try link.flush()
            var answered = 0
            let deadline = now + .seconds(10)
            while RedisSocket.wait(connection.fileDescriptor, for: Int16(POLLIN), until: deadline) {
                do throws(RedisReplicationError) {
                    answered += try link.replies().count
                } catch {
                    return (answered, link.drop().count, error)
                }
            }
            return (answered, link.drop().count, nil)
        }
        #expect(error?.code == .protocolError)
        #expect(answered + handedBack == 2)
    }
}
