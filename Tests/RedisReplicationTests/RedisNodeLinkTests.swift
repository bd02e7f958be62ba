import CacheCore
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
            let (link, connection, now) = try Self.connectedLink(configuration)
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

    @Test("a read's parts that arrive in an earlier batch, or came to a caller, are given with the read's last reply")
    func readPartsComeWithTheirRead() async throws {
        // The epoch's reply alone answers the read's commands; the rest comes after the next command (a PING).
        let epoch = "$1\r\n4\r\n"
        let rest = "$1\r\n3\r\n*2\r\n$1\r\n3\r\n$2\r\nhi\r\n+PONG\r\n"
        let peer = try RawRESPPeer(answers: [Array(epoch.utf8), Array(rest.utf8)])
        defer { peer.listener.close() }
        let sent = try await Self.settled(on: peer.configuration) { link, now in
            for (index, command) in Self.commands.read(key("alice", "a"), epoch: "4").enumerated() {
                let what: RedisSecondLevelOwed = index == 2 ? .read(1, epoch: "4", earlier: []) : .readPart
                try link.send(RedisOwedCommand(what: what, command: command, sentAt: now))
            }
        }
        try Self.expectHitAndPong(sent, earlier: [.string(Array("4".utf8)), .string(Array("3".utf8))])

        // A read a caller handed over after the epoch's reply came: the link owes the generation and the value.
        let handed = try RawRESPPeer(answers: [Array(rest.utf8)])
        defer { handed.listener.close() }
        let received = RedisReply.string(Array("4".utf8))
        let owed = try await Self.settled(on: handed.configuration, readsBeforePing: false) { link, now in
            let byCaller = RedisRoutedCommand([], key: [])
            link.owe(RedisOwedCommand(what: .readPart, command: byCaller, sentAt: now))
            link.owe(RedisOwedCommand(what: .read(1, epoch: "4", earlier: [received]), command: byCaller, sentAt: now))
        }
        try Self.expectHitAndPong(owed, earlier: [received, .string(Array("3".utf8))])
    }

    /// A link on a new connection to `configuration`'s peer (blocking: off the pool).
    private static func connectedLink(_ configuration: RedisReplicationConfiguration) throws -> (
        RedisNodeLink, RedisConnection, ContinuousClock.Instant
    ) {
        let connection = try RedisConnection(configuration)
        let now = ContinuousClock.now
        let link = RedisNodeLink(
            node: RedisNodeAddress(host: configuration.host, port: configuration.port), now: now, backoff: .seconds(1))
        link.adopt(connection, now: now)
        return (link, connection, now)
    }

    private static let commands = RedisSecondLevelCommands(
        keys: RedisSecondLevelKeys(prefix: "p:"),
        hashes: ScriptHashes(
            read: [], write: [], clearNamespace: [], takeTags: [], takeTagsCurrentEpoch: [], moveEpoch: []),
        maxTimeToLive: .seconds(60), readsEpochKey: true)

    /// Runs `start` on a link to the peer, sends a PING (after a first batch of replies when `readsBeforePing`), and
    /// returns every batch `replies()` gave.
    private static func settled(
        on configuration: RedisReplicationConfiguration, readsBeforePing: Bool = true,
        _ start: @escaping @Sendable (RedisNodeLink, ContinuousClock.Instant) throws -> Void
    ) async throws -> [[(RedisOwedCommand, RedisReply)]] {
        try await offThePool { () throws -> [[(RedisOwedCommand, RedisReply)]] in
            let (link, connection, now) = try Self.connectedLink(configuration)
            let deadline = now + .seconds(10)
            var batches: [[(RedisOwedCommand, RedisReply)]] = []
            func collect() throws {
                while link.oldestSentAt != nil,
                    RedisSocket.wait(connection.fileDescriptor, for: Int16(POLLIN), until: deadline)
                {
                    batches.append(try link.replies())
                    if readsBeforePing, batches.count == 1 { return }
                }
            }
            try start(link, now)
            if readsBeforePing {
                try link.flush()
                try collect()
            }
            try link.send(
                RedisOwedCommand(
                    what: .ping, command: RedisRoutedCommand(RedisSecondLevelCommands.ping, key: []), sentAt: now))
            try link.flush()
            try collect()
            return batches
        }
    }

    /// The batches hold the read's last reply with `earlier`, then the PONG; the read is a hit of `hi`.
    private static func expectHitAndPong(_ batches: [[(RedisOwedCommand, RedisReply)]], earlier expected: [RedisReply])
        throws
    {
        let settled = batches.flatMap { $0 }
        try #require(settled.count == 2, "settled: \(settled.map(\.0.what))")
        guard case .read(1, "4", let earlier) = settled[0].0.what else {
            Issue.record("the first settled reply is not the read's: \(settled[0].0.what)")
            return
        }
        #expect(earlier == expected)
        let outcome = RedisSecondLevelCommands.readOutcomeAndEpoch(earlier + [settled[0].1], epoch: "4")
        #expect(outcome.read == .hit(Array("hi".utf8), generation: SecondLevelGeneration(token: "4.3")))
        #expect(outcome.named == "4")
        #expect(settled[1].1 == .status("PONG"))
    }
}
