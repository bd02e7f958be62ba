import FixtureSupport
import Foundation
import Testing

@testable import RedisReplication

/// A subscriber's replies are read where hiredis parsed them (``RedisPubSubEvent``): what it delivers must be what
/// a copy of the reply would give, byte for byte, and nothing that is not a well-formed message may be delivered.
@Suite("Subscriber replies read in place: only a well-formed message's payload is delivered")
struct RedisPubSubEventTests {
    private static func bulk(_ bytes: [UInt8]) -> [UInt8] { Array("$\(bytes.count)\r\n".utf8) + bytes + [13, 10] }
    private static func bulk(_ text: String) -> [UInt8] { bulk(Array(text.utf8)) }
    private static func array(_ items: [UInt8]...) -> [UInt8] {
        Array("*\(items.count)\r\n".utf8) + items.joined()
    }
    private static func message(_ payload: [UInt8]) -> [UInt8] { array(bulk("message"), bulk("c"), bulk(payload)) }

    /// What a server (a hostile one included) may send a subscriber, each with the event it must be read as.
    private static let replies: [(bytes: [UInt8], event: RedisPubSubEvent)] = [
        (message(Array("first".utf8)), .message(Array("first".utf8))),
        (message([0, 13, 10, 255, 128, 36, 42]), .message([0, 13, 10, 255, 128, 36, 42])),
        (message([]), .message([])),
        (array(bulk("message"), bulk("c"), Array("+status payload\r\n".utf8)), .other),
        (array(Array("+message\r\n".utf8), bulk("c"), bulk("st")), .message(Array("st".utf8))),
        (array(bulk("pong"), bulk("")), .pong),
        (array(bulk("PONG"), bulk("")), .other),
        (array(bulk("pmessage"), bulk("p"), bulk("c"), bulk("x")), .other),
        (array(bulk("message"), bulk("c"), bulk("x"), bulk("y")), .other),
        (array(bulk("message"), bulk("c")), .other),
        (array(bulk("message"), bulk("c"), Array(":5\r\n".utf8)), .other),
        (array(bulk("message"), bulk("c"), Array("$-1\r\n".utf8)), .other),
        (array(bulk("message"), bulk("c"), array(bulk("x"))), .other),
        (array(bulk("messagex"), bulk("c"), bulk("x")), .other),
        (array(bulk("messag"), bulk("c"), bulk("x")), .other),
        (array(bulk("MESSAGE"), bulk("c"), bulk("x")), .other),
        (array(Array(":7\r\n".utf8), bulk("c"), bulk("x")), .other),
        (array(array(bulk("message")), bulk("c"), bulk("x")), .other),
        (array(Array("$-1\r\n".utf8), bulk("c"), bulk("x")), .other),
        (Array("*0\r\n".utf8), .other),
        (Array("+OK\r\n".utf8), .other),
        (Array("-ERR nope\r\n".utf8), .other),
        (message(Array("last".utf8)), .message(Array("last".utf8))),
    ]

    /// Subscribes on a peer that answers SUBSCRIBE, then sends every reply of ``replies`` once the client speaks
    /// again (so they arrive after the command's own reply, as messages do), and reads them with `read`.
    private static func receive(
        _ read: @escaping @Sendable (RedisConnection) throws -> [RedisPubSubEvent]
    ) async throws -> [RedisPubSubEvent] {
        let confirmation = array(bulk("subscribe"), bulk("c"), Array(":1\r\n".utf8))
        let peer = try RawRESPPeer(answers: [confirmation, Array(replies.map(\.bytes).joined())])
        defer { peer.listener.close() }
        let configuration = peer.configuration
        let expected = replies.count
        return try await offThePool { () throws -> [RedisPubSubEvent] in
            let connection = try RedisConnection(configuration)
            let confirmed = RedisPubSubEvent(try connection.command([Array("SUBSCRIBE".utf8), Array("c".utf8)]))
            guard confirmed == .other else { throw FixtureError("the confirmation was read as \(confirmed)") }
            try connection.append([Array("PING".utf8)])
            _ = try connection.flush()
            let deadline = ContinuousClock.now + .milliseconds(TestTiming.milliseconds(10_000))
            var events: [RedisPubSubEvent] = []
            while events.count < expected {
                guard RedisSocket.waitReadable(connection.fileDescriptor, until: deadline) else {
                    throw FixtureError("only \(events.count) of \(expected) replies arrived")
                }
                events += try read(connection)
            }
            return events
        }
    }

    @Test("replies read in place give the events their copies give; every shape but a message's delivers nothing")
    func inPlaceMatchesCopies() async throws {
        let inPlace = try await Self.receive { connection in
            var events: [RedisPubSubEvent] = []
            try connection.readAvailable { events.append(RedisPubSubEvent($0)) }
            return events
        }
        let copied = try await Self.receive { connection in
            try connection.readAvailable().map(RedisPubSubEvent.init)
        }
        #expect(inPlace == Self.replies.map(\.event))
        #expect(copied == inPlace)
    }

    @Test("a link hands over the payloads of well-formed messages alone, in order, and nothing of the other replies")
    func linkDeliversMessagesAlone() async throws {
        let confirmation = Self.array(Self.bulk("subscribe"), Self.bulk("c"), Array(":1\r\n".utf8))
        // The publisher connection gets the same answers; the link ignores what it did not ask for.
        let peer = try RawRESPPeer(answers: [confirmation, Array(Self.replies.map(\.bytes).joined())])
        defer { peer.listener.close() }
        var configuration = peer.configuration
        configuration.channel = "c"
        configuration.pingInterval = .milliseconds(1)  // the link's first PING makes the peer send the rest
        let settings = configuration
        let delivered = try await offThePool { () throws -> [[UInt8]] in
            let link = try RedisLink(configuration: settings, clock: ContinuousClock())
            let pipe = RedisWakePipe()
            let deadline = ContinuousClock.now + .milliseconds(TestTiming.milliseconds(10_000))
            var delivered: [[UInt8]] = []
            try withExtendedLifetime(pipe) { () throws in
                while delivered.last != Array("last".utf8), ContinuousClock.now < deadline {
                    delivered += try link.turn(wakeReader: pipe.reader)
                }
            }
            return delivered
        }
        let expected = Self.replies.compactMap { reply -> [UInt8]? in
            if case .message(let payload) = reply.event { return payload }
            return nil
        }
        #expect(delivered == expected)
    }
}
