import CacheCore

/// The second level's key layout and its Lua scripts, loaded with SCRIPT LOAD at every (re)connection (on every
/// node of a cluster) and run with EVALSHA, so each operation is one round trip. One server's read is no script but
/// three pipelined commands (see ``RedisSecondLevelCommands/read(_:epoch:)``): Redis runs a script's calls several
/// times slower than the same commands sent alone.
///
/// Keys, all under the configured prefix; each namespace's keys share the hash tag `{<ns>}`, so they live in one
/// slot of a Redis Cluster (names from the caches are keyed hashes, never containing `{`, `}` or `:`):
/// - `e`: the fleet epoch (no TTL); `INCR` moves every namespace at once. On a cluster it is never read per
///   request: each store reads it when it connects and with every health check, and learns the new value of its own
///   `INCR`. The epoch is carried in the names below.
/// - `{<ns>}g`: the namespace's generation (absent = 0).
/// - `{<ns>}v:<epoch>:<name>`: a value, as a hash: `g` the generation it was written under, `d` the bytes. A value
///   whose `g` is not the namespace's generation is a miss.
/// - `{<ns>}t:<epoch>:<tag>`: a SET naming the values indexed under the tag.
/// - `{<ns>}p:<clear>`: a SET of the values one tag clear is deleting (its tag sets moved there), so a clear sent
///   again after a cut link finds them although the tag sets are gone; deleted with the values (TTL: the longest).
///
/// On a cluster every script touches only keys given in KEYS, all of one namespace, hence one slot, and the epoch
/// comes from the store. A tag clear is two steps: a script moves the tag sets into the clear's own pending set and
/// returns the names it holds; a `DEL` of those values and the pending set follows. Each step can be sent again after
/// a cut at any point (the pending set answers the first step again; `DEL` is idempotent), so no entry escapes. On
/// one server the read and the tag clear read the epoch key themselves (the read's first command,
/// ``takeTagsCurrentEpoch``), so a fleet-wide clear reaches every replica at once.
///
/// **Generation safety rule.** A generation key may only vanish (expire) after every value written under an older
/// generation of its namespace has expired; otherwise the count would restart at 0 and old values written under
/// generation 0, 1, … would become readable again. So every write makes the generation key live at least as long as
/// the value (creating it at `0` when absent), and `INCR` keeps a key's TTL: the key outlives every value of every
/// generation of its namespace, whatever `maxTimeToLive` each replica has. A clear also leaves it at least
/// `maxTimeToLive`. A write never gives a TTL to a generation key that has none (one that never expires is safe).
struct RedisSecondLevelScripts {
    /// A cluster's read. KEYS: generation, value. Returns `{generation, value or nil}`.
    static let read = """
        local g = redis.call('GET', KEYS[1]) or '0'
        local v = redis.call('HMGET', KEYS[2], 'g', 'd')
        if v[1] == g then return {g, v[2]} end
        return {g, false}
        """

    /// KEYS: generation, value, tag sets…. ARGV: generation read, value, TTL (ms), name.
    /// Returns 1 when stored, 0 when the namespace moved on since the read that produced the generation.
    static let write = """
        local g = redis.call('GET', KEYS[1]) or '0'
        if g ~= ARGV[1] then return 0 end
        local ttl = tonumber(ARGV[3])
        redis.call('HSET', KEYS[2], 'g', g, 'd', ARGV[2])
        redis.call('PEXPIRE', KEYS[2], ttl)
        for i = 3, #KEYS do
          redis.call('SADD', KEYS[i], ARGV[4])
          if redis.call('PTTL', KEYS[i]) < ttl then redis.call('PEXPIRE', KEYS[i], ttl) end
        end
        local p = redis.call('PTTL', KEYS[1])
        if p == -2 then redis.call('SET', KEYS[1], '0', 'PX', ttl)
        elseif p >= 0 and p < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
        return 1
        """

    /// Moves a counter (a generation or the epoch) on: `INCR`, unless it holds what the fleet never writes — not a
    /// canonical decimal, or at least 2⁴⁸ (`SecondLevelGenerationGuard.plausibleLimit`, which replicas refuse to read
    /// under) — in which case it becomes ARGV[1], a recovery value above every count (the clearing replica's clock in
    /// milliseconds). Someone who set a huge or malformed generation stops the namespace's hits only until its next
    /// clear.
    static let moveCounter = """
        local function move(key, recovery)
          local c = redis.call('GET', key)
          if c == false then return redis.call('INCR', key) end
          if (c == '0' or string.match(c, '^[1-9]%d*$')) and string.len(c) < 16 and tonumber(c) < 281474976710655 then
            return redis.call('INCR', key)
          end
          redis.call('SET', key, recovery)
          return tonumber(recovery)
        end
        """

    /// KEYS: generation. ARGV: the max TTL (ms), the recovery value. Moves the namespace on (``moveCounter``) and
    /// keeps its key at least that long.
    static let clearNamespace = """
        \(moveCounter)
        local g = move(KEYS[1], ARGV[2])
        local ttl = tonumber(ARGV[1])
        if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
        return g
        """

    /// KEYS: epoch. ARGV: the recovery value. Moves every namespace on at once (``moveCounter``).
    static let moveEpoch = """
        \(moveCounter)
        return move(KEYS[1], ARGV[1])
        """

    /// Moves the members of the tag set `k` into the pending set `p` (SADD in slices: Lua's unpack is bounded).
    static let moveTagSet = """
        local function take(k, p)
          local members = redis.call('SMEMBERS', k)
          for i = 1, #members, 1000 do
            redis.call('SADD', p, unpack(members, i, math.min(i + 999, #members)))
          end
          redis.call('DEL', k)
        end
        """

    /// KEYS: the clear's pending set, tag sets. ARGV: the max TTL (ms). Moves the tag sets into the pending set and
    /// returns `{nil, names it holds}` (the values to delete next): O(entries named). Sent again, it answers the same.
    static let takeTags = """
        \(moveTagSet)
        for i = 2, #KEYS do take(KEYS[i], KEYS[1]) end
        redis.call('PEXPIRE', KEYS[1], ARGV[1])
        return {false, redis.call('SMEMBERS', KEYS[1])}
        """

    /// On one server: ``takeTags`` under the epoch key's value. KEYS: epoch, the clear's pending set. ARGV: tag-key
    /// prefix (`…{<ns>}t:`), the max TTL (ms), tags…. Returns `{epoch, names}`.
    static let takeTagsCurrentEpoch = """
        \(moveTagSet)
        local e = redis.call('GET', KEYS[1]) or '0'
        for i = 3, #ARGV do take(ARGV[1] .. e .. ':' .. ARGV[i], KEYS[2]) end
        redis.call('PEXPIRE', KEYS[2], ARGV[2])
        return {e, redis.call('SMEMBERS', KEYS[2])}
        """

    /// The scripts in the order ``ScriptHashes`` holds them.
    static let all = [read, write, clearNamespace, takeTags, takeTagsCurrentEpoch, moveEpoch]
}

/// The SHA1 names Redis gave the scripts at the last SCRIPT LOAD (the same on every node: SHA1 of the text).
struct ScriptHashes {
    var read: [UInt8]
    var write: [UInt8]
    var clearNamespace: [UInt8]
    var takeTags: [UInt8]
    var takeTagsCurrentEpoch: [UInt8]
    var moveEpoch: [UInt8]
}

/// Key names, as bytes ready for a command, built by appending (a read builds two, and interpolating a string
/// then copying its bytes cost twice the allocations).
struct RedisSecondLevelKeys {
    let prefix: String
    let epoch: [UInt8]

    init(prefix: String) {
        self.prefix = prefix
        epoch = Array("\(prefix)e".utf8)
    }

    /// `<prefix>{<ns>}<marker>`, then `epoch` and `:` when there is one, then `name`.
    private func key(
        _ namespace: SecondLevelNamespace, _ marker: StaticString, epoch: String? = nil, name: String = ""
    ) -> [UInt8] {
        var key: [UInt8] = []
        key.reserveCapacity(length(namespace, marker, epoch: epoch, name: name))
        append(namespace, marker, epoch: epoch, name: name, to: &key)
        return key
    }

    /// The same key as a RESP bulk string, appended to `output` with no key array made (every read names two).
    private func appendBulk(
        _ namespace: SecondLevelNamespace, _ marker: StaticString, epoch: String? = nil, name: String = "",
        to output: inout [UInt8]
    ) {
        RedisRESPFormat.appendHeader(
            UInt8(ascii: "$"), length(namespace, marker, epoch: epoch, name: name), to: &output)
        append(namespace, marker, epoch: epoch, name: name, to: &output)
        RedisRESPFormat.appendLineEnd(to: &output)
    }

    private func length(_ namespace: SecondLevelNamespace, _ marker: StaticString, epoch: String?, name: String)
        -> Int
    {
        prefix.utf8.count + namespace.name.utf8.count + 2 + marker.utf8CodeUnitCount
            + (epoch.map { $0.utf8.count + 1 } ?? 0) + name.utf8.count
    }

    private func append(
        _ namespace: SecondLevelNamespace, _ marker: StaticString, epoch: String?, name: String,
        to output: inout [UInt8]
    ) {
        output.append(contentsOf: prefix.utf8)
        output.append(UInt8(ascii: "{"))
        output.append(contentsOf: namespace.name.utf8)
        output.append(UInt8(ascii: "}"))
        output.append(contentsOf: UnsafeBufferPointer(start: marker.utf8Start, count: marker.utf8CodeUnitCount))
        if let epoch {
            output.append(contentsOf: epoch.utf8)
            output.append(UInt8(ascii: ":"))
        }
        output.append(contentsOf: name.utf8)
    }

    func generation(_ namespace: SecondLevelNamespace) -> [UInt8] {
        key(namespace, "g")
    }

    /// ``generation(_:)`` as a RESP bulk string.
    func appendGenerationBulk(_ namespace: SecondLevelNamespace, to output: inout [UInt8]) {
        appendBulk(namespace, "g", to: &output)
    }

    /// `…{<ns>}v:`; a value key is it, the epoch, `:` and the name.
    func valuePrefix(_ namespace: SecondLevelNamespace) -> [UInt8] {
        key(namespace, "v:")
    }

    /// `…{<ns>}t:`; a tag key is it, the epoch, `:` and the tag.
    func tagPrefix(_ namespace: SecondLevelNamespace) -> [UInt8] {
        key(namespace, "t:")
    }

    func value(_ namespace: SecondLevelNamespace, epoch: String, name: String) -> [UInt8] {
        key(namespace, "v:", epoch: epoch, name: name)
    }

    /// ``value(_:epoch:name:)`` as a RESP bulk string.
    func appendValueBulk(_ namespace: SecondLevelNamespace, epoch: String, name: String, to output: inout [UInt8]) {
        appendBulk(namespace, "v:", epoch: epoch, name: name, to: &output)
    }

    /// `…{<ns>}p:<clear>`: the values one tag clear is deleting.
    func pending(_ namespace: SecondLevelNamespace, clear: String) -> [UInt8] {
        key(namespace, "p:", name: clear)
    }

    func tag(_ namespace: SecondLevelNamespace, epoch: String, tag: String) -> [UInt8] {
        key(namespace, "t:", epoch: epoch, name: tag)
    }
}
