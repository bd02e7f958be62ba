import UnifiedCache

/// The second level's key layout and its Lua scripts, loaded with SCRIPT LOAD at every (re)connection (on every
/// node of a cluster) and run with EVALSHA, so each operation is one command and one round trip.
///
/// Keys, all under the configured prefix; each namespace's keys share the hash tag `{<ns>}`, so they live in one
/// slot of a Redis Cluster (names from the caches are keyed hashes, never containing `{`, `}` or `:`):
/// - `e`: the fleet epoch (no TTL); `INCR` moves every namespace at once. It is never read per request: each
///   store reads it when it connects and with every health check, and learns the new value of its own `INCR`.
///   The epoch is carried in the names below.
/// - `{<ns>}g`: the namespace's generation (absent = 0).
/// - `{<ns>}v:<epoch>:<name>`: a value, as a hash: `g` the generation it was written under, `d` the bytes. A value
///   whose `g` is not the namespace's generation is a miss.
/// - `{<ns>}t:<epoch>:<tag>`: a SET naming the values indexed under the tag.
///
/// On a cluster every script touches only keys given in KEYS, all of one namespace, hence one slot, and the epoch
/// comes from the store. A tag clear is two steps: a script takes and deletes the tag sets and returns the names they
/// held; a `DEL` of those values follows. On one server the read and the tag clear read the epoch key themselves
/// (``readCurrentEpoch``, ``takeTagsCurrentEpoch``), so a fleet-wide clear reaches every replica at once.
///
/// **Generation safety rule.** A generation key may only vanish (expire) after every value written under an older
/// generation of its namespace has expired; otherwise the count would restart at 0 and old values written under
/// generation 0, 1, … would become readable again. So every write makes the generation key live at least as long as
/// the value (creating it at `0` when absent), and `INCR` keeps a key's TTL: the key outlives every value of every
/// generation of its namespace, whatever `maxTimeToLive` each replica has. A clear also leaves it at least
/// `maxTimeToLive`. A write never gives a TTL to a generation key that has none (one that never expires is safe).
struct RedisSecondLevelScripts {
    /// KEYS: generation, value. Returns `{generation, value or nil}`.
    static let read = """
        local g = redis.call('GET', KEYS[1]) or '0'
        local v = redis.call('HMGET', KEYS[2], 'g', 'd')
        if v[1] == g then return {g, v[2]} end
        return {g, false}
        """

    /// On one server: the read under the epoch key's value, so a fleet-wide clear reaches every replica's next read.
    /// KEYS: generation, epoch. ARGV: value-key prefix (`…{<ns>}v:`), name. Returns `{generation, value or nil,
    /// epoch}`. (It names the value key itself, so it is not for a cluster.)
    static let readCurrentEpoch = """
        local e = redis.call('GET', KEYS[2]) or '0'
        local g = redis.call('GET', KEYS[1]) or '0'
        local v = redis.call('HMGET', ARGV[1] .. e .. ':' .. ARGV[2], 'g', 'd')
        if v[1] == g then return {g, v[2], e} end
        return {g, false, e}
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

    /// KEYS: generation. ARGV: the max TTL (ms). Moves the namespace on and keeps its key at least that long.
    static let clearNamespace = """
        local g = redis.call('INCR', KEYS[1])
        local ttl = tonumber(ARGV[1])
        if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
        return g
        """

    /// KEYS: tag sets. Deletes them and returns `{nil, names they held}` (the values to delete next): O(entries
    /// named).
    static let takeTags = """
        local names = {}
        for i = 1, #KEYS do
          for _, n in ipairs(redis.call('SMEMBERS', KEYS[i])) do names[#names + 1] = n end
          redis.call('DEL', KEYS[i])
        end
        return {false, names}
        """

    /// On one server: ``takeTags`` under the epoch key's value. KEYS: epoch. ARGV: tag-key prefix (`…{<ns>}t:`),
    /// tags…. Returns `{epoch, names}`.
    static let takeTagsCurrentEpoch = """
        local e = redis.call('GET', KEYS[1]) or '0'
        local names = {}
        for i = 2, #ARGV do
          local k = ARGV[1] .. e .. ':' .. ARGV[i]
          for _, n in ipairs(redis.call('SMEMBERS', k)) do names[#names + 1] = n end
          redis.call('DEL', k)
        end
        return {e, names}
        """

    /// The scripts in the order ``ScriptHashes`` holds them.
    static let all = [read, write, clearNamespace, takeTags, readCurrentEpoch, takeTagsCurrentEpoch]
}

/// The SHA1 names Redis gave the scripts at the last SCRIPT LOAD (the same on every node: SHA1 of the text).
struct ScriptHashes {
    var read: [UInt8]
    var write: [UInt8]
    var clearNamespace: [UInt8]
    var takeTags: [UInt8]
    var readCurrentEpoch: [UInt8]
    var takeTagsCurrentEpoch: [UInt8]
}

/// Key names, as bytes ready for a command.
struct RedisSecondLevelKeys {
    let prefix: String
    let epoch: [UInt8]

    init(prefix: String) {
        self.prefix = prefix
        epoch = Array("\(prefix)e".utf8)
    }

    func generation(_ namespace: SecondLevelNamespace) -> [UInt8] {
        Array("\(prefix){\(namespace.name)}g".utf8)
    }

    /// `…{<ns>}v:`; a value key is it, the epoch, `:` and the name.
    func valuePrefix(_ namespace: SecondLevelNamespace) -> [UInt8] {
        Array("\(prefix){\(namespace.name)}v:".utf8)
    }

    /// `…{<ns>}t:`; a tag key is it, the epoch, `:` and the tag.
    func tagPrefix(_ namespace: SecondLevelNamespace) -> [UInt8] {
        Array("\(prefix){\(namespace.name)}t:".utf8)
    }

    func value(_ namespace: SecondLevelNamespace, epoch: String, name: String) -> [UInt8] {
        Array("\(prefix){\(namespace.name)}v:\(epoch):\(name)".utf8)
    }

    func tag(_ namespace: SecondLevelNamespace, epoch: String, tag: String) -> [UInt8] {
        Array("\(prefix){\(namespace.name)}t:\(epoch):\(tag)".utf8)
    }
}
