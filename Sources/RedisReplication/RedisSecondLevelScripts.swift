import UnifiedCache

/// The second level's key layout and its Lua scripts, loaded with SCRIPT LOAD at every (re)connection and run with
/// EVALSHA, so each operation is one command and one round trip.
///
/// Keys, all under the configured prefix (names from the caches are keyed hashes, never containing `:`):
/// - `e`: the fleet epoch (no TTL); `INCR` moves every namespace at once.
/// - `g:<ns>`: the namespace's generation (absent = 0).
/// - `v:<ns>:<epoch>.<gen>:<name>`: a value.
/// - `t:<ns>:<epoch>.<gen>:<tag>`: a SET naming the values indexed under the tag in that generation.
///
/// The scripts compute key names, so they are not Redis Cluster safe (the keys they touch are not all declared).
///
/// **Generation safety rule.** A generation key may only vanish (expire) after every value written under an older
/// generation of its namespace has expired; otherwise the count would restart at 0 and old values under `<epoch>.0`,
/// `<epoch>.1`, … would become readable again. So every write makes the generation key live at least as long as the
/// value (creating it at `0` when absent), and `INCR` keeps a key's TTL: the key outlives every value of every
/// generation of its namespace, whatever `maxTimeToLive` each replica has. A clear also leaves it at least
/// `maxTimeToLive`. A write never gives a TTL to a generation key that has none (one that never expires is safe).
struct RedisSecondLevelScripts {
    /// KEYS: epoch, generation. ARGV: value-key prefix (`…v:<ns>:`), name.
    /// Returns `{token, value or nil}`.
    static let read = """
        local t = (redis.call('GET', KEYS[1]) or '0') .. '.' .. (redis.call('GET', KEYS[2]) or '0')
        return {t, redis.call('GET', ARGV[1] .. t .. ':' .. ARGV[2])}
        """

    /// KEYS: epoch, generation. ARGV: token, value-key prefix, name, value, TTL (ms), tag-key prefix, tags….
    /// Returns 1 when stored, 0 when the namespace moved on since the read that produced `token`.
    static let write = """
        local t = (redis.call('GET', KEYS[1]) or '0') .. '.' .. (redis.call('GET', KEYS[2]) or '0')
        if t ~= ARGV[1] then return 0 end
        local ttl = tonumber(ARGV[5])
        redis.call('SET', ARGV[2] .. t .. ':' .. ARGV[3], ARGV[4], 'PX', ttl)
        for i = 7, #ARGV do
          local k = ARGV[6] .. t .. ':' .. ARGV[i]
          redis.call('SADD', k, ARGV[3])
          if redis.call('PTTL', k) < ttl then redis.call('PEXPIRE', k, ttl) end
        end
        local g = redis.call('PTTL', KEYS[2])
        if g == -2 then redis.call('SET', KEYS[2], '0', 'PX', ttl)
        elseif g >= 0 and g < ttl then redis.call('PEXPIRE', KEYS[2], ttl) end
        return 1
        """

    /// KEYS: generation. ARGV: the max TTL (ms). Moves the namespace on and keeps its key at least that long.
    static let clearNamespace = """
        local g = redis.call('INCR', KEYS[1])
        local ttl = tonumber(ARGV[1])
        if redis.call('PTTL', KEYS[1]) < ttl then redis.call('PEXPIRE', KEYS[1], ttl) end
        return g
        """

    /// KEYS: epoch, generation. ARGV: value-key prefix, tag-key prefix, tags…. Deletes the values each tag's set
    /// names in the current generation, then the set: O(entries named). Returns how many keys were deleted.
    static let clearTags = """
        local t = (redis.call('GET', KEYS[1]) or '0') .. '.' .. (redis.call('GET', KEYS[2]) or '0')
        local deleted = 0
        for i = 3, #ARGV do
          local k = ARGV[2] .. t .. ':' .. ARGV[i]
          local names = redis.call('SMEMBERS', k)
          for j = 1, #names, 500 do
            local batch = {}
            for n = j, math.min(j + 499, #names) do batch[#batch + 1] = ARGV[1] .. t .. ':' .. names[n] end
            deleted = deleted + redis.call('DEL', unpack(batch))
          end
          redis.call('DEL', k)
        end
        return deleted
        """

    /// The four scripts in the order ``ScriptHashes`` holds them.
    static let all = [read, write, clearNamespace, clearTags]
}

/// The SHA1 names Redis gave the scripts at the last SCRIPT LOAD.
struct ScriptHashes {
    var read: [UInt8]
    var write: [UInt8]
    var clearNamespace: [UInt8]
    var clearTags: [UInt8]
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
        Array("\(prefix)g:\(namespace.name)".utf8)
    }

    /// `…v:<ns>:`; the scripts append `<epoch>.<gen>:<name>`.
    func valuePrefix(_ namespace: SecondLevelNamespace) -> [UInt8] {
        Array("\(prefix)v:\(namespace.name):".utf8)
    }

    /// `…t:<ns>:`; the scripts append `<epoch>.<gen>:<tag>`.
    func tagPrefix(_ namespace: SecondLevelNamespace) -> [UInt8] {
        Array("\(prefix)t:\(namespace.name):".utf8)
    }
}
