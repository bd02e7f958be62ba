import FixtureSupport
import Foundation

@testable import RedisReplication

#if canImport(Glibc)
    import Glibc
#endif

/// A "Redis" on loopback that is only bytes: each connection it accepts gets `answer` once, right after the first
/// bytes the client sends, and is then kept open (so only the answer, not a close, can end the client's wait). For
/// what a real server never sends: hostile announcements, replies packed into one segment.
final class RawRESPPeer: Sendable {
    let listener: SilentListener

    convenience init(answer: [UInt8]) throws {
        try self.init(answers: [answer])
    }

    /// Each connection gets `answers[n]` right after the n-th bytes the client sends (a command it waits on, then
    /// the next): replies that arrive after a command's own, as a subscriber's messages do.
    init(answers: [[UInt8]]) throws {
        let listener = try SilentListener()
        self.listener = listener
        let fd = listener.descriptor
        Thread.detachNewThread {
            while true {
                let client = accept(fd, nil, nil)
                guard client >= 0 else { return }  // the listener was closed
                Thread.detachNewThread { Self.serve(client, answers) }
            }
        }
    }

    private static func serve(_ client: Int32, _ answers: [[UInt8]]) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        for answer in answers {
            guard recv(client, &buffer, buffer.count, 0) > 0 else {
                _ = Glibc.close(client)
                return
            }
            _ = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        }
        while recv(client, &buffer, buffer.count, 0) > 0 {}  // until the client hangs up
        _ = Glibc.close(client)
    }

    /// A configuration for this peer: no AUTH, and timeouts long enough that only the answer ends a wait.
    var configuration: RedisReplicationConfiguration {
        RedisReplicationConfiguration(port: listener.port, allowsUnauthenticated: true, commandTimeout: .seconds(30))
    }
}
