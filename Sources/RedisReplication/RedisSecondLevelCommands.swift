import CacheCore
import Foundation

/// A command as RESP, formatted once when it is made (a command sent again after a redirect or a reconnection is
/// not formatted again), and the slot of its keys (every key of a command is in one slot), for routing on a cluster.
struct RedisRoutedCommand {
    var request: [UInt8]
    var slot: Int

    init(_ arguments: [[UInt8]], key: [UInt8]) {
        self.init(arguments, slot: RedisClusterSlot.of(key))
    }

    init(_ arguments: [[UInt8]], slot: Int) {
        var request: [UInt8] = []
        RedisRESPFormat.appendCommand(arguments, to: &request)
        self.init(request: request, slot: slot)
    }

    init(request: [UInt8], slot: Int) {
        self.request = request
        self.slot = slot
    }
}

/// The second level's commands as hiredis arguments, and what their replies mean.
struct RedisSecondLevelCommands {
    private static let evalsha = Array("EVALSHA".utf8)
    private static let oneKey = Array("1".utf8)
    private static let twoKeys = Array("2".utf8)
    private static let incr = Array("INCR".utf8)
    private static let get = Array("GET".utf8)
    private static let del = Array("DEL".utf8)
    private static let hmget = Array("HMGET".utf8)
    /// A value hash's fields: the generation it was written under, and its bytes.
    private static let generationField = Array("g".utf8)
    private static let dataField = Array("d".utf8)
    static let ping = [Array("PING".utf8)]
    static let asking = [Array("ASKING".utf8)]
    static let noScriptPrefix = "NOSCRIPT"

    let keys: RedisSecondLevelKeys
    let hashes: ScriptHashes
    let maxTimeToLive: [UInt8]
    /// On one server, reads and tag clears read the epoch key themselves; on a cluster they use the store's.
    let readsEpochKey: Bool
    /// `GET` of the epoch key: every one-server read's first command, formatted once.
    private let epochGet: [UInt8]

    init(keys: RedisSecondLevelKeys, hashes: ScriptHashes, maxTimeToLive: Duration, readsEpochKey: Bool) {
        self.keys = keys
        epochGet = RedisRoutedCommand([Self.get, keys.epoch], key: keys.epoch).request
        self.hashes = hashes
        self.readsEpochKey = readsEpochKey
        self.maxTimeToLive = Array(String(maxTimeToLive.milliseconds).utf8)
    }

    /// `SCRIPT LOAD` of each script, in ``ScriptHashes`` order.
    static let scriptLoads = RedisSecondLevelScripts.all.map {
        [Array("SCRIPT".utf8), Array("LOAD".utf8), Array($0.utf8)]
    }

    /// How many replies a read gets: one server's pipelined read three, a cluster's script one.
    var repliesPerRead: Int { readsEpochKey ? 3 : 1 }

    /// A read's commands, in order: the last one's reply is owed as the read, the others as its
    /// ``RedisSecondLevelOwed/readPart``s.
    ///
    /// On one server, three pipelined commands: `GET` of the epoch, `GET` of the generation and `HMGET` of the value
    /// under `epoch` (the store's). Redis runs them in about a microsecond, against about seven for the same reads in
    /// a Lua script. The value counts only when the epoch key still holds `epoch`; when it holds another (a
    /// fleet-wide clear), the read is made again under that one (``ReadAnswer``'s `moved`), so the clear reaches the
    /// next read at once and a value written after it is found. On a cluster, one script under the store's epoch:
    /// one command to route and, while a slot moves, to redirect.
    func read(_ key: SecondLevelKey, epoch: String) -> [RedisRoutedCommand] {
        let slot = RedisClusterSlot.of(keys.generation(key.namespace))
        guard readsEpochKey else {
            return [RedisRoutedCommand(scriptReadArguments(key, epoch: epoch), slot: slot)]
        }
        var generationGet: [UInt8] = []
        appendGenerationGet(key, to: &generationGet)
        var valueGet: [UInt8] = []
        appendValueGet(key, epoch: epoch, to: &valueGet)
        return [
            RedisRoutedCommand(request: epochGet, slot: slot), RedisRoutedCommand(request: generationGet, slot: slot),
            RedisRoutedCommand(request: valueGet, slot: slot),
        ]
    }

    /// The same commands, written one after another straight into `output` (a connection's buffer), with no array
    /// made for each: a lane writes them on every L2 hit.
    func appendRead(_ key: SecondLevelKey, epoch: String, to output: inout [UInt8]) {
        guard readsEpochKey else {
            RedisRESPFormat.appendCommand(scriptReadArguments(key, epoch: epoch), to: &output)
            return
        }
        output.append(contentsOf: epochGet)
        appendGenerationGet(key, to: &output)
        appendValueGet(key, epoch: epoch, to: &output)
    }

    /// A cluster's read: the script, under the store's epoch.
    private func scriptReadArguments(_ key: SecondLevelKey, epoch: String) -> [[UInt8]] {
        [
            Self.evalsha, hashes.read, Self.twoKeys, keys.generation(key.namespace),
            keys.value(key.namespace, epoch: epoch, name: key.name),
        ]
    }

    /// `GET` of the namespace's generation.
    private func appendGenerationGet(_ key: SecondLevelKey, to output: inout [UInt8]) {
        output.append(contentsOf: Self.getHead)
        keys.appendGenerationBulk(key.namespace, to: &output)
    }

    /// `HMGET` of the value's generation and bytes, its key named under `epoch`.
    private func appendValueGet(_ key: SecondLevelKey, epoch: String, to output: inout [UInt8]) {
        output.append(contentsOf: Self.hmgetHead)
        keys.appendValueBulk(key.namespace, epoch: epoch, name: key.name, to: &output)
        output.append(contentsOf: Self.hmgetFields)
    }

    /// What never changes between reads, formatted once: the array header and name of a key's `GET` and of the
    /// value's `HMGET`, and the `HMGET`'s fields after its key.
    private static let getHead = commandHead(count: 2, name: get)
    private static let hmgetHead = commandHead(count: 4, name: hmget)
    private static let hmgetFields: [UInt8] = {
        var fields: [UInt8] = []
        RedisRESPFormat.appendBulk(generationField, to: &fields)
        RedisRESPFormat.appendBulk(dataField, to: &fields)
        return fields
    }()

    private static func commandHead(count: Int, name: [UInt8]) -> [UInt8] {
        var head: [UInt8] = []
        RedisRESPFormat.appendHeader(UInt8(ascii: "*"), count, to: &head)
        RedisRESPFormat.appendBulk(name, to: &head)
        return head
    }

    /// The write, under the epoch and generation of the read its token came from; nil for a token no read of this
    /// store returned.
    func write(_ write: RedisSecondLevelLoop.Write) -> RedisRoutedCommand? {
        guard let (epoch, generation) = Self.parts(of: write.token) else { return nil }
        let namespace = write.key.namespace
        let generationKey = keys.generation(namespace)
        let tagKeys = write.tags.map { keys.tag(namespace, epoch: epoch, tag: $0.name) }
        let declared = [generationKey, keys.value(namespace, epoch: epoch, name: write.key.name)] + tagKeys
        return RedisRoutedCommand(
            [Self.evalsha, hashes.write, Array(String(declared.count).utf8)] + declared + [
                Array(generation.utf8), write.value, Array(String(write.timeToLiveMilliseconds).utf8),
                Array(write.key.name.utf8),
            ], key: generationKey)
    }

    /// `recovery`: what the generation becomes if it holds what the fleet never writes (see
    /// ``RedisSecondLevelScripts/moveCounter``).
    func clearNamespace(_ namespace: SecondLevelNamespace, recovery: UInt64) -> RedisRoutedCommand {
        let generation = keys.generation(namespace)
        return RedisRoutedCommand(
            [
                Self.evalsha, hashes.clearNamespace, Self.oneKey, generation, maxTimeToLive,
                Array(String(recovery).utf8),
            ],
            key: generation)
    }

    /// The first step of a tag clear: move the tag sets of the epoch into the clear's pending set.
    func takeTags(_ tags: [SecondLevelTag], in namespace: SecondLevelNamespace, epoch: String, pending: String)
        -> RedisRoutedCommand
    {
        let pendingKey = keys.pending(namespace, clear: pending)
        if readsEpochKey {
            return RedisRoutedCommand(
                [
                    Self.evalsha, hashes.takeTagsCurrentEpoch, Self.twoKeys, keys.epoch, pendingKey,
                    keys.tagPrefix(namespace), maxTimeToLive,
                ] + tags.map { Array($0.name.utf8) }, key: keys.generation(namespace))
        }
        let tagKeys = clearedEpochs(epoch).flatMap { epoch in
            tags.map { keys.tag(namespace, epoch: epoch, tag: $0.name) }
        }
        return RedisRoutedCommand(
            [Self.evalsha, hashes.takeTags, Array(String(tagKeys.count + 1).utf8), pendingKey] + tagKeys
                + [maxTimeToLive],
            key: keys.generation(namespace))
    }

    /// The second step: delete the values the sets named, and the clear's pending set.
    func deleteValues(_ names: [[UInt8]], in namespace: SecondLevelNamespace, epoch: String, pending: String)
        -> RedisRoutedCommand
    {
        let valueKeys = clearedEpochs(epoch).flatMap { epoch in
            names.map { keys.value(namespace, epoch: epoch, name: String(decoding: $0, as: UTF8.self)) }
        }
        return RedisRoutedCommand(
            [Self.del] + valueKeys + [keys.pending(namespace, clear: pending)], key: keys.generation(namespace))
    }

    /// The epochs a tag clear reaches: on one server the epoch key's (read by the script); on a cluster the store's
    /// and the next, since another replica's fleet-wide clear reaches this store only with its next health check
    /// and values written under that new epoch must not escape this clear meanwhile.
    private func clearedEpochs(_ epoch: String) -> [String] {
        guard !readsEpochKey, let value = UInt64(epoch), value < UInt64.max else { return [epoch] }
        return [epoch, String(value + 1)]
    }

    func moveEpoch(recovery: UInt64) -> RedisRoutedCommand {
        RedisRoutedCommand(
            [Self.evalsha, hashes.moveEpoch, Self.oneKey, keys.epoch, Array(String(recovery).utf8)], key: keys.epoch)
    }

    /// The value a generation or the epoch takes when a clear finds it malformed or implausible: milliseconds since
    /// 1970 on this replica's clock, above every count of clears and far below the readers' plausibility limit.
    static func recoveryValue(now: Date = Date()) -> UInt64 {
        UInt64(max(0, now.timeIntervalSince1970 * 1000))
    }

    func readEpoch() -> RedisRoutedCommand {
        RedisRoutedCommand(request: epochGet, slot: RedisClusterSlot.of(keys.epoch))
    }

    /// The epoch in a reply of `GET` (absent: 0) or `INCR`; nil for anything else.
    static func epoch(in reply: RedisReply) -> String? {
        switch reply {
        case .null: return "0"
        case .integer(let value): return String(value)
        case .string(let bytes):
            guard let value = UInt64(String(decoding: bytes, as: UTF8.self)) else { return nil }
            return String(value)
        default: return nil
        }
    }

    /// `<epoch>.<generation>` split, both decimal numbers.
    static func parts(of token: String) -> (epoch: String, generation: String)? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, UInt64(parts[0]) != nil, UInt64(parts[1]) != nil else { return nil }
        return (String(parts[0]), String(parts[1]))
    }

    /// What a read's replies say: its outcome; the epoch they named (one server reads the epoch key with every read),
    /// so the caller takes it without parsing it again; and whether that epoch is not the one the value key was named
    /// under (`moved`: the fleet moved on since the store last read it, and the read is worth making again under it,
    /// once).
    typealias ReadAnswer = (read: SecondLevelRead, named: String?, moved: Bool)

    /// A read's replies (its parts', then its last) as a hit or a miss, with its generation token; anything else is an
    /// error. `epoch` is the one the read's value key was named under.
    static func readOutcomeAndEpoch(_ replies: [RedisReply], epoch known: String) -> ReadAnswer {
        guard let last = replies.last else { return (.unavailable(.error), nil, false) }
        return readOutcomeAndEpoch(parts: replies.dropLast(), last: last, epoch: known)
    }

    /// The same, with the read's parts apart from its last reply, as the store's thread holds them (no array made to
    /// join them).
    static func readOutcomeAndEpoch(parts: ArraySlice<RedisReply>, last: RedisReply, epoch known: String)
        -> ReadAnswer
    {
        switch parts.count {
        case 0: return (scriptReadOutcome(last, epoch: known), nil, false)
        case 2:
            let first = parts.startIndex
            return pipelinedReadOutcome(epoch: parts[first], generation: parts[first + 1], value: last, known)
        default: return (.unavailable(.error), nil, false)
        }
    }

    /// The read script's `{generation, value or nil}` (a cluster's: under the store's epoch).
    private static func scriptReadOutcome(_ reply: RedisReply, epoch: String) -> SecondLevelRead {
        guard case .array(let items) = reply, items.count == 2, case .string(let generation) = items[0] else {
            return .unavailable(.error)
        }
        let token = SecondLevelGeneration(token: epoch + "." + String(decoding: generation, as: UTF8.self))
        switch items[1] {
        case .string(let value): return .hit(value, generation: token)
        case .null: return .miss(generation: token)
        default: return .unavailable(.error)
        }
    }

    /// One server's `GET` of the epoch, `GET` of the generation (absent: 0) and `HMGET g d` of the value under
    /// `known`. A hit only when the epoch key still holds `known` and the value was written under the generation
    /// read; a value of an epoch the fleet has left is a miss under the new one, which the caller takes for its next
    /// reads.
    private static func pipelinedReadOutcome(
        epoch epochReply: RedisReply, generation generationReply: RedisReply, value: RedisReply, _ known: String
    ) -> ReadAnswer {
        guard let named = epoch(in: epochReply) else { return (.unavailable(.error), nil, false) }
        let moved = named != known
        let generation: [UInt8]
        switch generationReply {
        case .null: generation = [UInt8(ascii: "0")]
        case .string(let bytes): generation = bytes
        default: return (.unavailable(.error), named, moved)
        }
        guard case .array(let fields) = value, fields.count == 2 else { return (.unavailable(.error), named, moved) }
        let token = SecondLevelGeneration(token: named + "." + String(decoding: generation, as: UTF8.self))
        guard !moved, fields[0] == .string(generation), case .string(let bytes) = fields[1] else {
            return (.miss(generation: token), named, moved)
        }
        return (.hit(bytes, generation: token), named, false)
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
    /// Counts a read's outcome, and an answered read's latency (the lane and the store's thread count alike).
    mutating func record(_ read: SecondLevelRead, latency: Duration) {
        switch read {
        case .hit(let value, _):
            hits += 1
            bytesRead += value.count
        case .miss: misses += 1
        case .unavailable:
            errors += 1
            return
        }
        answeredReads += 1
        readLatencyNanoseconds += latency.nanoseconds
    }

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
