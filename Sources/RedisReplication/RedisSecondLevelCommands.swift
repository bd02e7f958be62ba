import UnifiedCache

/// The second level's commands as hiredis arguments, and what their replies mean.
struct RedisSecondLevelCommands {
    private static let evalsha = Array("EVALSHA".utf8)
    private static let oneKey = Array("1".utf8)
    private static let twoKeys = Array("2".utf8)
    private static let incr = Array("INCR".utf8)
    static let ping = [Array("PING".utf8)]
    static let noScriptPrefix = "NOSCRIPT"

    let keys: RedisSecondLevelKeys
    let hashes: ScriptHashes
    let maxTimeToLive: [UInt8]

    init(keys: RedisSecondLevelKeys, hashes: ScriptHashes, maxTimeToLive: Duration) {
        self.keys = keys
        self.hashes = hashes
        self.maxTimeToLive = Array(String(maxTimeToLive.milliseconds).utf8)
    }

    /// `SCRIPT LOAD` of each script, in ``ScriptHashes`` order.
    static let scriptLoads = RedisSecondLevelScripts.all.map {
        [Array("SCRIPT".utf8), Array("LOAD".utf8), Array($0.utf8)]
    }

    func read(_ key: SecondLevelKey) -> [[UInt8]] {
        [
            Self.evalsha, hashes.read, Self.twoKeys, keys.epoch, keys.generation(key.namespace),
            keys.valuePrefix(key.namespace), Array(key.name.utf8),
        ]
    }

    func write(_ write: RedisSecondLevelLoop.Write) -> [[UInt8]] {
        let namespace = write.key.namespace
        return [
            Self.evalsha, hashes.write, Self.twoKeys, keys.epoch, keys.generation(namespace), Array(write.token.utf8),
            keys.valuePrefix(namespace), Array(write.key.name.utf8), write.value,
            Array(String(write.timeToLiveMilliseconds).utf8), keys.tagPrefix(namespace),
        ] + write.tags.map { Array($0.name.utf8) }
    }

    func clear(_ operation: RedisSecondLevelLoop.ClearOperation) -> [[UInt8]] {
        switch operation {
        case .namespace(let namespace):
            return [Self.evalsha, hashes.clearNamespace, Self.oneKey, keys.generation(namespace), maxTimeToLive]
        case .tags(let tags, let namespace):
            return [
                Self.evalsha, hashes.clearTags, Self.twoKeys, keys.epoch, keys.generation(namespace),
                keys.valuePrefix(namespace), keys.tagPrefix(namespace),
            ] + tags.map { Array($0.name.utf8) }
        case .all:
            return [Self.incr, keys.epoch]
        }
    }

    /// The read script's `{token, value or nil}` as a hit or a miss; anything else is an error.
    static func readOutcome(_ reply: RedisReply) -> SecondLevelRead {
        guard case .array(let items) = reply, items.count == 2, case .string(let token) = items[0] else {
            return .unavailable(.error)
        }
        let generation = SecondLevelGeneration(token: String(decoding: token, as: UTF8.self))
        switch items[1] {
        case .string(let value): return .hit(value, generation: generation)
        case .null: return .miss(generation: generation)
        default: return .unavailable(.error)
        }
    }

    /// Whether Redis lost the scripts (restart without persistence, SCRIPT FLUSH, failover): the connection is
    /// made again, which loads them.
    static func isNoScript(_ reply: RedisReply) -> Bool {
        if case .error(let text) = reply { return text.hasPrefix(noScriptPrefix) }
        return false
    }
}

extension Duration {
    /// Whole nanoseconds (for latency sums).
    var nanoseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000_000_000 + attoseconds / 1_000_000_000
    }
}

extension SecondLevelStatistics {
    /// Adds the counters of `delta` (not ``isConnected``).
    mutating func add(_ delta: SecondLevelStatistics) {
        hits += delta.hits
        misses += delta.misses
        errors += delta.errors
        timeouts += delta.timeouts
        writes += delta.writes
        droppedWrites += delta.droppedWrites
        clears += delta.clears
        bytesRead += delta.bytesRead
        bytesWritten += delta.bytesWritten
        readLatencyNanoseconds += delta.readLatencyNanoseconds
        answeredReads += delta.answeredReads
    }
}
