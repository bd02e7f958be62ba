import CacheCore
import Testing

@testable import RedisReplication

/// One server's read is three replies (the epoch, the generation, the value's `g` and `d`); what they mean together
/// decides whether a value another replica cleared can still be served.
@Suite("Redis second level: what a read's replies mean")
struct SecondLevelReadRepliesTests {
    private static func text(_ value: String) -> RedisReply { .string(Array(value.utf8)) }
    private static func value(generation: RedisReply, bytes: RedisReply = text("v")) -> RedisReply {
        .array([generation, bytes])
    }
    private static func read(_ replies: [RedisReply], sentUnder epoch: String = "4") -> (SecondLevelRead, String?) {
        let outcome = RedisSecondLevelCommands.readOutcomeAndEpoch(replies, epoch: epoch)
        return (outcome.read, outcome.named)
    }

    /// The epoch a read is made again under: the one its replies named, when it is not the one it was sent under.
    private static func movedEpoch(in replies: [RedisReply], from known: String) -> String? {
        let answer = RedisSecondLevelCommands.readOutcomeAndEpoch(replies, epoch: known)
        return answer.moved ? answer.named : nil
    }

    @Test("a value written under the generation read, under the epoch the read named, is a hit with both in its token")
    func hit() {
        let (read, named) = Self.read([Self.text("4"), Self.text("3"), Self.value(generation: Self.text("3"))])
        #expect(read == .hit(Array("v".utf8), generation: SecondLevelGeneration(token: "4.3")))
        #expect(named == "4")
    }

    @Test("a value under an epoch the fleet has left is a miss under the new epoch, which the reply names")
    func epochMovedOn() {
        let (read, named) = Self.read([Self.text("5"), Self.text("3"), Self.value(generation: Self.text("3"))])
        #expect(read == .miss(generation: SecondLevelGeneration(token: "5.3")))
        #expect(named == "5")
        // An epoch key gone (Redis restarted empty) is 0: a value read under 4 is not its.
        let (restarted, zero) = Self.read([.null, .null, Self.value(generation: Self.text("0"))])
        #expect(restarted == .miss(generation: SecondLevelGeneration(token: "0.0")))
        #expect(zero == "0")
        // Such a read is made again under the epoch named, once (never for the current epoch or a cluster's read).
        let moved = [Self.text("5"), Self.text("3"), Self.value(generation: Self.text("3"))]
        #expect(Self.movedEpoch(in: moved, from: "4") == "5")
        #expect(Self.movedEpoch(in: moved, from: "5") == nil)
        #expect(Self.movedEpoch(in: [Self.text("x")] + moved.dropFirst(), from: "4") == nil)
        #expect(Self.movedEpoch(in: [.array([Self.text("3"), .null])], from: "4") == nil)
    }

    @Test("a value of another generation, or none, is a miss; an absent generation key is generation 0")
    func generationMismatch() {
        #expect(
            Self.read([Self.text("4"), Self.text("3"), Self.value(generation: Self.text("2"))]).0
                == .miss(generation: SecondLevelGeneration(token: "4.3")))
        #expect(
            Self.read([Self.text("4"), .null, Self.value(generation: .null, bytes: .null)]).0
                == .miss(generation: SecondLevelGeneration(token: "4.0")))
        #expect(
            Self.read([Self.text("4"), .null, Self.value(generation: Self.text("0"))]).0
                == .hit(Array("v".utf8), generation: SecondLevelGeneration(token: "4.0")))
        // A hash with the generation but no bytes is no value.
        #expect(
            Self.read([Self.text("4"), Self.text("3"), Self.value(generation: Self.text("3"), bytes: .null)]).0
                == .miss(generation: SecondLevelGeneration(token: "4.3")))
    }

    @Test("an error, a malformed epoch or a reply of the wrong shape makes the read unavailable, never a hit")
    func malformed() {
        let good = [Self.text("4"), Self.text("3"), Self.value(generation: Self.text("3"))]
        let refusals: [[RedisReply]] = [
            [.error("NOPERM this user has no permissions to access one of the keys"), good[1], good[2]],
            [good[0], .error("WRONGTYPE Operation against a key holding the wrong kind of value"), good[2]],
            [good[0], good[1], .error("WRONGTYPE Operation against a key holding the wrong kind of value")],
            [Self.text("four"), good[1], good[2]],
            [good[0], .integer(3), good[2]],
            [good[0], good[1], Self.text("v")],
            [good[0], good[1], .array([Self.text("3")])],
            Array(good.prefix(2)),
            good + [.status("PONG")],
            [],
        ]
        for replies in refusals {
            #expect(Self.read(replies).0 == .unavailable(.error), "\(replies)")
        }
    }

    @Test("a cluster's read is the script's one reply, under the store's epoch, naming none")
    func clusterScript() {
        let (read, named) = Self.read([.array([Self.text("3"), Self.text("v")])], sentUnder: "7")
        #expect(read == .hit(Array("v".utf8), generation: SecondLevelGeneration(token: "7.3")))
        #expect(named == nil)
        #expect(
            Self.read([.array([Self.text("3"), .null])]).0 == .miss(generation: SecondLevelGeneration(token: "4.3")))
        #expect(Self.read([.error("NOSCRIPT No matching script.")]).0 == .unavailable(.error))
    }

    @Test(
        "a read's commands written straight as RESP are the bytes its arguments format to, on one server and a cluster")
    func readWrittenInPlace() {
        let hashes = ScriptHashes(
            read: Array("0123456789abcdef0123456789abcdef01234567".utf8), write: [], clearNamespace: [], takeTags: [],
            takeTagsCurrentEpoch: [], moveEpoch: [])
        // Lengths of one, two and three digits, an empty name, and bytes beyond ASCII.
        let prefixes = ["p:", "ucache:\(String(repeating: "x", count: 120)):", "préfixe:"]
        let keys = [
            SecondLevelKey(namespace: SecondLevelNamespace("ns"), name: "n"),
            SecondLevelKey(namespace: SecondLevelNamespace("a1b2c3d4e5f6"), name: String(repeating: "N", count: 22)),
            SecondLevelKey(namespace: SecondLevelNamespace(""), name: ""),
        ]
        for prefix in prefixes {
            for readsEpochKey in [true, false] {
                let commands = RedisSecondLevelCommands(
                    keys: RedisSecondLevelKeys(prefix: prefix), hashes: hashes, maxTimeToLive: .seconds(60),
                    readsEpochKey: readsEpochKey)
                for key in keys {
                    for epoch in ["", "0", "17", "123456789012"] {
                        // The arguments as the key layout names them, formatted by the generic formatter.
                        let namespaced = prefix + "{" + key.namespace.name + "}"
                        let generation = Array((namespaced + "g").utf8)
                        let value = Array((namespaced + "v:" + epoch + ":" + key.name).utf8)
                        let arguments: [[[UInt8]]] =
                            readsEpochKey
                            ? [
                                [Array("GET".utf8), Array((prefix + "e").utf8)], [Array("GET".utf8), generation],
                                [Array("HMGET".utf8), value, Array("g".utf8), Array("d".utf8)],
                            ]
                            : [[Array("EVALSHA".utf8), hashes.read, Array("2".utf8), generation, value]]
                        var formatted: [UInt8] = []
                        for command in arguments { RedisRESPFormat.appendCommand(command, to: &formatted) }
                        var written: [UInt8] = Array("already there".utf8)
                        commands.appendRead(key, epoch: epoch, to: &written)
                        #expect(written == Array("already there".utf8) + formatted, "\(prefix) \(key) \(epoch)")
                        // The store's thread sends the same commands one by one, each owed its own reply.
                        let sent = commands.read(key, epoch: epoch)
                        #expect(sent.count == arguments.count)
                        #expect(sent.flatMap(\.request) == formatted)
                    }
                }
            }
        }
        // The form itself, for the shortest case: what hiredis's redisFormatCommandArgv writes.
        let commands = RedisSecondLevelCommands(
            keys: RedisSecondLevelKeys(prefix: "p:"), hashes: hashes, maxTimeToLive: .seconds(60),
            readsEpochKey: true)
        var written: [UInt8] = []
        commands.appendRead(SecondLevelKey(namespace: SecondLevelNamespace("ns"), name: "n"), epoch: "4", to: &written)
        let expected =
            "*2\r\n$3\r\nGET\r\n$3\r\np:e\r\n*2\r\n$3\r\nGET\r\n$7\r\np:{ns}g\r\n"
            + "*4\r\n$5\r\nHMGET\r\n$11\r\np:{ns}v:4:n\r\n$1\r\ng\r\n$1\r\nd\r\n"
        #expect(String(decoding: written, as: UTF8.self) == expected)
    }
}
