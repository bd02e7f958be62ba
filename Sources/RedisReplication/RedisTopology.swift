/// One Redis server: a host and a TCP port.
public struct RedisNodeAddress: Hashable, Sendable, CustomStringConvertible {
    /// The host name or address.
    public var host: String
    /// The TCP port.
    public var port: Int

    /// The node at `host:port`.
    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// `host:port`.
    public var description: String { "\(host):\(port)" }
}

/// Whether the configuration names one Redis server or the seed nodes of a Redis Cluster.
public enum RedisTopology: Sendable, Equatable {
    /// One server (or a proxy in front of several): every command goes to the configuration's host and port.
    case standalone
    /// A Redis Cluster: the slot map is discovered (`CLUSTER SLOTS`) from the first seed that answers, every command
    /// goes to the node that owns its key's slot, `MOVED` and `ASK` redirections are followed, and the map is
    /// discovered again after a redirection or a lost node. The replication link publishes and subscribes through
    /// one node (classic pub/sub reaches every node of a cluster) and moves to the next seed when it loses it.
    case cluster(seeds: [RedisNodeAddress])

    /// The environment variable that, set to `1`, makes a one-host `UCACHE_REDIS_URL` a cluster seed (a URL listing
    /// several hosts, `redis://:password@host1:port1,host2:port2`, is a cluster without it).
    public static let clusterEnvironmentVariable = "UCACHE_REDIS_CLUSTER"

    /// Whether this is a cluster.
    public var isCluster: Bool {
        if case .cluster = self { return true }
        return false
    }
}

extension RedisReplicationConfiguration {
    /// The seed nodes to discover a cluster from (the configured host first), or the one configured node.
    var seeds: [RedisNodeAddress] {
        let configured = RedisNodeAddress(host: host, port: port)
        guard case .cluster(let seeds) = topology else { return [configured] }
        return [configured] + seeds.filter { $0 != configured }
    }

    /// This configuration pointed at `node` (the same credentials, timeouts and channel).
    func pointed(at node: RedisNodeAddress) -> RedisReplicationConfiguration {
        var copy = self
        copy.host = node.host
        copy.port = node.port
        return copy
    }

    /// The nodes of a URL's host part: `host[:port]` or `host1:port1,host2:port2,…` (port 6379 when omitted).
    static func nodes(in hosts: Substring) throws(RedisReplicationError) -> [RedisNodeAddress] {
        var nodes: [RedisNodeAddress] = []
        for part in hosts.split(separator: ",", omittingEmptySubsequences: false) {
            var rest = part
            var port = 6379
            if let colon = rest.lastIndex(of: ":") {
                guard let parsed = Int(rest[rest.index(after: colon)...]), (1...65535).contains(parsed) else {
                    throw RedisReplicationError(.invalidURL, "The Redis URL's port is not a number in 1…65535.")
                }
                port = parsed
                rest = rest[..<colon]
            }
            guard !rest.isEmpty else { throw RedisReplicationError(.invalidURL, "The Redis URL names no host.") }
            nodes.append(RedisNodeAddress(host: String(rest), port: port))
        }
        return nodes
    }

    /// Applies `UCACHE_REDIS_CLUSTER` (`0`, `1` or unset) to a configuration parsed from the environment's URL.
    mutating func applyClusterEnvironment(_ environment: [String: String]) throws(RedisReplicationError) {
        switch environment[RedisTopology.clusterEnvironmentVariable] ?? "" {
        case "", "0": return
        case "1": if !topology.isCluster { topology = .cluster(seeds: [RedisNodeAddress(host: host, port: port)]) }
        default:
            throw RedisReplicationError(.invalidURL, "\(RedisTopology.clusterEnvironmentVariable) must be 0 or 1.")
        }
    }
}
