import CHiredis

@testable import RedisReplication
@testable import UnifiedCache

/// Bytes as a Redis server (or anyone answering in its place) sends them: hiredis's reader parses them, the module
/// copies each reply out (``RedisReply``) and reads it as the second level and the pub/sub link do.
enum RedisReplyFuzzTarget {
    static func run(_ input: [UInt8]) -> [String] {
        var violations = Violations()
        let replies = parse(input)
        for reply in replies {
            interpret(reply)
            let again = parse(encode(reply))
            violations.expect(again == [reply], "a reply re-encoded as RESP parses to \(again), not \(reply)")
        }
        // One server's read is three replies (epoch, generation, value): every three in a row, read as one.
        for start in replies.indices.dropLast(2) {
            readAsSecondLevel(Array(replies[start..<(start + 3)]))
        }
        return violations.list
    }

    /// Every complete reply the production reader (hiredis's, arrays capped at
    /// ``RedisConnection/maxArrayElements``) reads from `bytes`, up to the first protocol error. hiredis 0.14 alone
    /// would allocate an announced count up front (`*544444444` → 4 GB); the capped reader refuses it instead.
    static func parse(_ bytes: [UInt8]) -> [RedisReply] {
        guard let reader = uch_capped_reader_create(RedisConnection.maxArrayElements) else { return [] }
        defer { uch_capped_reader_free(reader) }
        let fed = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { redisReaderFeed(reader, $0.baseAddress, $0.count) }
        }
        guard fed == uch_ok else { return [] }
        var replies: [RedisReply] = []
        while true {
            var raw: UnsafeMutableRawPointer?
            guard redisReaderGetReply(reader, &raw) == uch_ok, let raw else { return replies }
            replies.append(RedisReply.take(raw))
        }
    }

    /// What the module makes of a reply: a second-level read's outcome (and the value's decoding, as the hub
    /// would), a lost-scripts error, a pub/sub message.
    private static func interpret(_ reply: RedisReply) {
        readAsSecondLevel([reply])
        _ = RedisSecondLevelCommands.isNoScript(reply)
        _ = RedisSecondLevelCommands.epoch(in: reply)
        _ = RedisClusterMap(slots: reply, fallbackHost: "127.0.0.1")
        _ = RedisClusterRedirect(reply, fallbackHost: "127.0.0.1")
        if case .array(let items) = reply, let kind = items.first?.text, kind == "message", items.count == 3,
            case .string(let payload) = items[2]
        {
            _ = payload.count
        }
    }

    /// A second-level read's replies as the store reads them (and the value's decoding, as the hub would).
    private static func readAsSecondLevel(_ replies: [RedisReply]) {
        if case .hit(let value, _) = RedisSecondLevelCommands.readOutcomeAndEpoch(replies, epoch: "0").read {
            _ = SecondLevelEntryCodec.decode(value)
            _ = SecondLevelEntryCodec.decodeGraphQL(value)
        }
    }

    /// The reply in RESP2, as a server would send it.
    static func encode(_ reply: RedisReply) -> [UInt8] {
        switch reply {
        case .string(let bytes): return Array("$\(bytes.count)\r\n".utf8) + bytes + [13, 10]
        case .status(let text): return Array("+\(text)\r\n".utf8)
        case .error(let text): return Array("-\(text)\r\n".utf8)
        case .integer(let value): return Array(":\(value)\r\n".utf8)
        case .array(let items): return Array("*\(items.count)\r\n".utf8) + items.flatMap(encode)
        case .null: return Array("$-1\r\n".utf8)
        }
    }

    static func seeds() -> [(name: String, bytes: [UInt8])] {
        let value = SecondLevelFuzzHarness.restSeeds()[0].bytes
        let replies: [(String, RedisReply)] = [
            ("read-hit", .array([.string(Array("3:7".utf8)), .string(value)])),
            ("read-miss", .array([.string(Array("3:7".utf8)), .null])),
            ("pong", .status("PONG")),
            ("ok", .status("OK")),
            ("noscript", .error("NOSCRIPT No matching script. Please use EVAL.")),
            ("incr", .integer(42)),
            ("subscribe", .array([.string(Array("subscribe".utf8)), .string(Array("ucache".utf8)), .integer(1)])),
            ("message", .array([.string(Array("message".utf8)), .string(Array("ucache".utf8)), .string([1, 2, 3])])),
            ("pubsub-pong", .array([.string(Array("pong".utf8)), .string([])])),
        ]
        var seeds = replies.map { ($0.0, encode($0.1)) }
        seeds.append(("pipeline", replies.flatMap { encode($0.1) }))
        // One server's read: the epoch, the generation, then the value's hash fields.
        let generation = RedisReply.string(Array("7".utf8))
        seeds.append(
            (
                "read-one-server",
                [.string(Array("3".utf8)), generation, .array([generation, .string(value)])].flatMap(encode)
            ))
        return seeds
    }
}
