/// Which node serves each hash slot of a Redis Cluster, as `CLUSTER SLOTS` and redirections tell it.
struct RedisClusterMap {
    /// The owner of each slot; nil for a slot no node serves.
    private(set) var owners: [RedisNodeAddress?] = Array(repeating: nil, count: RedisClusterSlot.count)

    /// Every node that owns at least one slot (kept with the map: the loop asks every turn).
    private(set) var nodes: Set<RedisNodeAddress> = []

    subscript(slot: Int) -> RedisNodeAddress? {
        owners.indices.contains(slot) ? owners[slot] : nil
    }

    /// `MOVED`: the slot now lives on `node`.
    mutating func move(_ slot: Int, to node: RedisNodeAddress) {
        guard owners.indices.contains(slot) else { return }
        let previous = owners[slot]
        owners[slot] = node
        nodes.insert(node)
        // The previous owner leaves the node set only if this was its last slot (one scan, only then).
        if let previous, previous != node, !owners.contains(previous) {
            nodes.remove(previous)
        }
    }

    /// The map a `CLUSTER SLOTS` reply describes: `[[start, end, [host, port, id…], replicas…]…]`. A node that
    /// reports no host (an empty string or `?`) is at `fallbackHost`, the host the reply came from. Nil for a
    /// reply of another shape.
    init?(slots reply: RedisReply, fallbackHost: String) {
        guard case .array(let ranges) = reply else { return nil }
        for range in ranges {
            guard case .array(let fields) = range, fields.count >= 3, case .integer(let start) = fields[0],
                case .integer(let end) = fields[1], case .array(let primary) = fields[2], primary.count >= 2,
                case .integer(let port) = primary[1], (1...65535).contains(port),
                (0..<Int64(RedisClusterSlot.count)).contains(start),
                (start..<Int64(RedisClusterSlot.count)).contains(end)
            else { return nil }
            var host = primary[0].text ?? ""
            if host.isEmpty || host == "?" { host = fallbackHost }
            let node = RedisNodeAddress(host: host, port: Int(port))
            for slot in Int(start)...Int(end) { owners[slot] = node }
        }
        nodes = Set(owners.compactMap { $0 })
    }

    init() {}
}

/// A cluster's redirection of one command, from its error reply.
enum RedisClusterRedirect: Equatable {
    /// The slot moved for good: update the map and send the command there.
    case moved(slot: Int, to: RedisNodeAddress)
    /// The slot is being migrated and this key is on the target: send `ASKING` and the command there, once.
    case ask(slot: Int, to: RedisNodeAddress)

    /// `MOVED <slot> <host>:<port>` or `ASK <slot> <host>:<port>` (an empty host is `fallbackHost`); nil for any
    /// other reply.
    init?(_ reply: RedisReply, fallbackHost: String) {
        guard case .error(let text) = reply else { return nil }
        let words = text.split(separator: " ")
        guard words.count == 3, let slot = Int(words[1]), (0..<RedisClusterSlot.count).contains(slot),
            let colon = words[2].lastIndex(of: ":"), let port = Int(words[2][words[2].index(after: colon)...]),
            (1...65535).contains(port)
        else { return nil }
        let host = String(words[2][..<colon])
        let node = RedisNodeAddress(host: host.isEmpty ? fallbackHost : host, port: port)
        switch words[0] {
        case "MOVED": self = .moved(slot: slot, to: node)
        case "ASK": self = .ask(slot: slot, to: node)
        default: return nil
        }
    }
}

extension RedisClusterMap {
    /// Asks the seeds, then the known nodes, in turn for `CLUSTER SLOTS` over a short-lived blocking connection;
    /// the first complete answer wins. Nil when none answered.
    static func discover(
        _ configuration: RedisReplicationConfiguration, known: Set<RedisNodeAddress>
    ) -> (map: RedisClusterMap, error: RedisReplicationError?) {
        var lastError: RedisReplicationError?
        let candidates =
            configuration.seeds + known.subtracting(configuration.seeds).sorted { $0.description < $1.description }
        for node in candidates {
            do throws(RedisReplicationError) {
                let connection = try RedisConnection(configuration.pointed(at: node))
                let reply = try connection.command([Array("CLUSTER".utf8), Array("SLOTS".utf8)])
                if let map = RedisClusterMap(slots: reply, fallbackHost: node.host), !map.nodes.isEmpty {
                    return (map, nil)
                }
                lastError = RedisReplicationError(.protocolError, "Redis at \(node) answered no cluster slot map.")
            } catch {
                lastError = error
            }
        }
        return (RedisClusterMap(), lastError)
    }
}
