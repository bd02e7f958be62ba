import FixtureSupport
import Foundation
import Testing

@testable import RedisReplication

@Suite("A message that arrives with the subscription's confirmation is delivered at once")
struct RedisLinkBufferedReplyTests {
    @Test("a message packed behind SUBSCRIBE's reply is returned by the first turn, not after the next ping")
    func messageBehindConfirmation() async throws {
        let confirmation = "*3\r\n$9\r\nsubscribe\r\n$1\r\nc\r\n:1\r\n"
        let message = "*3\r\n$7\r\nmessage\r\n$1\r\nc\r\n$5\r\nfirst\r\n"
        let peer = try RawRESPPeer(answer: Array((confirmation + message).utf8))
        defer { peer.listener.close() }
        var configuration = peer.configuration
        configuration.channel = "c"
        configuration.pingInterval = .seconds(3)  // the turn's own deadline: only the buffered message ends it now
        let settings = configuration
        // Without looking at what was parsed ahead, the turn would sleep in poll() until its ping deadline and
        // return nothing: the socket has no more bytes to report.
        let messages = try await offThePool { () throws -> [[UInt8]] in
            let link = try RedisLink(configuration: settings, clock: ContinuousClock())
            let pipe = RedisWakePipe()
            return try withExtendedLifetime(pipe) { () throws -> [[UInt8]] in try link.turn(wakeReader: pipe.reader) }
        }
        #expect(messages == [Array("first".utf8)])
    }
}
