import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real Redis Cluster for the tests: `primaries` `redis-server` processes in cluster mode (each in a temporary
/// directory of its own, on a free loopback port, with a password like ``RedisTestServer``), joined by
/// `redis-cli --cluster create … --cluster-replicas 0`. The slots are split evenly (node 0 holds 0–5460 of three).
/// With `replicasPerPrimary` (`--cluster-replicas N`), `primaries × (1 + N)` nodes start and `redis-cli` chooses
/// which are primaries: ask ``replica(of:)``, and ``waitUntilPromoted(_:)`` after killing a primary (a replica takes
/// over once the other primaries agree it failed, about two `cluster-node-timeout`s of 1 s).
///
/// Nodes run with `cluster-require-full-coverage no` (a dead primary leaves the other shards serving) and an
/// append-only file written at every command, so a killed node ``restart(_:)``s with what it held, as a production
/// node with persistence does. Every process lives at most as long as the test process (as with
/// ``RedisTestServer``); ``stop()`` kills them and removes the directories.
public final class RedisTestCluster: Sendable {
    public let host = "127.0.0.1"
    public let ports: [Int]
    /// The cluster bus port of each node (its own free port: `port + 10000` may be past 65535 or taken).
    private let busPorts: [Int]
    public let password: String
    private let directory: String
    private let running: Mutex<[(pid: pid_t, stdin: ChildProcess?)]>

    private init(ports: [Int], busPorts: [Int], password: String, directory: String) {
        self.ports = ports
        self.busPorts = busPorts
        self.password = password
        self.directory = directory
        running = Mutex(ports.map { _ in (0, nil) })
    }

    /// `redis://:password@127.0.0.1:port1,127.0.0.1:port2,…`: every node a seed.
    public var url: String { "redis://:\(password)@" + ports.map { "\(host):\($0)" }.joined(separator: ",") }

    /// `redis://:password@127.0.0.1:port` of one node.
    public func url(ofNode index: Int) -> String { "redis://:\(password)@\(host):\(ports[index])" }

    /// Directories of clusters not stopped (one shared by many tests lives as long as the process): removed at exit.
    private static let leftOver = Mutex<(directories: Set<String>, registered: Bool)>(([], false))

    private static func removeLeftOver() {
        for directory in leftOver.withLock({ $0.directories }) {
            try? FileManager.default.removeItem(atPath: directory)
        }
    }

    /// Starts the nodes, creates the cluster and returns once every node reports `cluster_state:ok`.
    public static func start(primaries: Int = 3, replicasPerPrimary: Int = 0, password: String? = nil) async throws
        -> RedisTestCluster
    {
        let count = primaries * (1 + replicasPerPrimary)
        let ports = try (0..<count).map { _ in try UnusedPort.find() }
        let busPorts = try (0..<count).map { _ in try UnusedPort.find() }
        let directory = NSTemporaryDirectory() + "ucache-cluster-\(UUID().uuidString.prefix(8))"
        let register = leftOver.withLock { leftOver in
            leftOver.directories.insert(directory)
            defer { leftOver.registered = true }
            return !leftOver.registered
        }
        if register { atexit { RedisTestCluster.removeLeftOver() } }
        let cluster = RedisTestCluster(
            ports: ports, busPorts: busPorts, password: password ?? "ucache-test-\(UUID().uuidString.prefix(12))",
            directory: directory)
        try await offThePool {
            for index in ports.indices {
                try FileManager.default.createDirectory(
                    atPath: cluster.directory(of: index), withIntermediateDirectories: true)
                try cluster.launch(index)
            }
            let nodes = ports.map { "127.0.0.1:\($0)" }.joined(separator: " ")
            let created = try cluster.cli(
                ports[0], "--cluster create \(nodes) --cluster-replicas \(replicasPerPrimary) --cluster-yes")
            guard created.contains("All 16384 slots covered") else {
                throw FixtureError("redis-cli --cluster create did not cover every slot: \(created.suffix(600))")
            }
            try cluster.waitUntilHealthy()
        }
        return cluster
    }

    /// Kills one node at once (SIGKILL) and returns once its port refuses connections.
    public func kill(_ index: Int) async {
        let pid = running.withLock { $0[index].pid }
        if pid > 0 { send(SIGKILL, to: pid) }
        try? await offThePool {
            let deadline = Date().addingTimeInterval(10)
            // Polling until the killed node's port refuses: the process's exit, not time passing in a test.
            while Date() < deadline, RedisTestServer.accepts(port: self.ports[index]) { usleep(2_000) }
        }
    }

    /// Freezes one node (SIGSTOP): its connections stay open and nothing answers.
    public func pause(_ index: Int) {
        let pid = running.withLock { $0[index].pid }
        if pid > 0 { send(SIGSTOP, to: pid) }
    }

    /// Thaws a paused node (SIGCONT).
    public func resume(_ index: Int) {
        let pid = running.withLock { $0[index].pid }
        if pid > 0 { send(SIGCONT, to: pid) }
    }

    /// Starts a killed node again (same port, directory, node id and data) and waits until the cluster is healthy.
    public func restart(_ index: Int) async throws {
        try await offThePool {
            try self.launch(index)
            try self.waitUntilHealthy()
        }
    }

    /// Kills every node and removes their directories.
    public func stop() async {
        for index in ports.indices {
            resume(index)
            await kill(index)
        }
        running.withLock { $0 = $0.map { _ in (0, nil) } }
        try? FileManager.default.removeItem(atPath: directory)
        _ = Self.leftOver.withLock { $0.directories.remove(directory) }
    }

    /// Runs `redis-cli -a <password> -p <port> <arguments>` and returns what it printed.
    public func cli(_ port: Int, _ arguments: String) throws -> String {
        let process = try ChildProcess.spawn(
            "/bin/sh", ["-c", "redis-cli --no-auth-warning -a '\(password)' -h \(host) -p \(port) \(arguments)"],
            standardOutput: true)
        let output = process.output?.readDataToEndOfFile() ?? Data()
        process.wait()
        return String(decoding: output, as: UTF8.self)
    }

    /// The index of a node that replicates node `primary` (nil when none does), as `primary`'s own table says.
    public func replica(of primary: Int) throws -> Int? {
        let table = try nodeTable(ports[primary])
        guard let id = table.first(where: { $0.flags.contains("myself") })?.id else { return nil }
        return table.first { $0.primaryID == id }.flatMap { ports.firstIndex(of: $0.port) }
    }

    /// Whether node `index` is a primary now (its own table's `myself` line says `master`).
    public func isPrimary(_ index: Int) throws -> Bool {
        try nodeTable(ports[index]).contains { $0.flags.contains("myself") && $0.flags.contains("master") }
    }

    /// Waits (polling, up to 20 s) until node `index` is a primary that serves slots and every node that accepts
    /// connections reports `cluster_state:ok`: after its primary was killed, the replica was promoted.
    public func waitUntilPromoted(_ index: Int) async throws {
        try await offThePool {
            let deadline = Date().addingTimeInterval(20)
            while Date() < deadline {
                let promoted = try self.nodeTable(self.ports[index]).contains {
                    $0.flags.contains("myself") && $0.flags.contains("master") && $0.servesSlots
                }
                let live = self.ports.filter { RedisTestServer.accepts(port: $0) }
                if promoted, try live.allSatisfy({ try self.cli($0, "CLUSTER INFO").contains("cluster_state:ok") }) {
                    return
                }
                usleep(50_000)  // waiting for the cluster's failover, not for time to pass in a test
            }
            throw FixtureError("node \(index) was not promoted with cluster_state:ok within 20 s")
        }
    }

    /// One line of `CLUSTER NODES`: `<id> <ip:port@bus> <flags> <primary id or -> <ping> <pong> <epoch> <link>
    /// <slots…>`.
    private struct NodeLine {
        let id: String
        let port: Int
        let flags: [Substring]
        let primaryID: String
        let servesSlots: Bool
    }

    private func nodeTable(_ port: Int) throws -> [NodeLine] {
        try cli(port, "CLUSTER NODES").split(whereSeparator: \.isNewline).compactMap { line in
            let fields = line.split(separator: " ")
            guard fields.count >= 8, let colon = fields[1].lastIndex(of: ":") else { return nil }
            let address = fields[1][fields[1].index(after: colon)...]
            guard let port = Int(address.prefix { $0.isNumber }) else { return nil }
            return NodeLine(
                id: String(fields[0]), port: port, flags: fields[2].split(separator: ","), primaryID: String(fields[3]),
                servesSlots: fields.count > 8)
        }
    }

    private func directory(of index: Int) -> String { "\(directory)/\(ports[index])" }

    private func launch(_ index: Int) throws {
        let port = ports[index]
        let command =
            "(cd '\(directory(of: index))' && exec redis-server --port \(port) --bind 127.0.0.1 --cluster-enabled yes "
            + "--cluster-port \(busPorts[index]) "
            + "--cluster-config-file nodes.conf --cluster-node-timeout 1000 --cluster-require-full-coverage no "
            // A replica takes over however long ago it last heard from its primary (the test kills it at any time).
            + "--cluster-replica-validity-factor 0 --repl-diskless-sync-delay 0 "
            + "--cluster-allow-reads-when-down no --save '' --appendonly yes --appendfsync always "
            + "--requirepass '\(password)' --masterauth '\(password)' --daemonize no)"
        let (pid, shell) = try launchRedis(command, listeningOn: port)
        running.withLock { $0[index] = (pid, shell) }
    }

    /// Waits until every live node says `cluster_state:ok`, knows every other node as connected and every replica as
    /// one (gossip spreads a node's new role after `--cluster create`), and, for a replica, is in sync with its
    /// primary.
    private func waitUntilHealthy() throws {
        let deadline = Date().addingTimeInterval(20)
        while Date() < deadline {
            let healthy = try ports.allSatisfy { port in
                try cli(port, "CLUSTER INFO").contains("cluster_state:ok")
                    && !cli(port, "CLUSTER NODES").contains("fail")
            }
            // Replicas: their first synchronisation done, so a failover has data to promote.
            let roles = try ports.map { try cli($0, "INFO replication") }
            let synchronised = roles.allSatisfy { $0.contains("role:master") || $0.contains("master_link_status:up") }
            let replicas = roles.filter { $0.contains("role:slave") }.count
            let known = try ports.allSatisfy { port in
                try nodeTable(port).filter { $0.flags.contains("slave") }.count == replicas
            }
            if healthy, synchronised, known { return }
            usleep(50_000)  // waiting for the cluster's gossip to settle, not for time to pass in a test
        }
        throw FixtureError("the Redis Cluster did not report cluster_state:ok within 20 s")
    }
}
