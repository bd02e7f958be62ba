import FixtureSupport
import Foundation
import Synchronization
import Testing
import UnifiedCache

@testable import RedisReplication

/// The cluster most cluster tests share (tests that kill nodes or move slots start their own).
enum SharedTestCluster {
    private static let started = Mutex<Task<RedisTestCluster, any Error>?>(nil)

    static func get() async throws -> RedisTestCluster {
        let task = started.withLock { task in
            if let task { return task }
            let made = Task { try await RedisTestCluster.start() }
            task = made
            return made
        }
        return try await task.value
    }
}

/// A second-level configuration for the cluster (every node a seed) under a key prefix of its own.
func clusterConfiguration(_ cluster: RedisTestCluster, label: String) throws -> RedisSecondLevelConfiguration {
    let configuration = try secondLevelConfiguration(url: cluster.url, label: label)
    #expect(configuration.connection.topology.isCluster)
    return configuration
}

/// A store on the cluster with a connection to every primary.
func connectedClusterStore(_ configuration: RedisSecondLevelConfiguration, nodes: Int = 3) async throws
    -> RedisSecondLevelStore
{
    let store = RedisSecondLevelStore(configuration: configuration)
    try await waitUntil { store.statistics().isConnected && store.nodes == (nodes, nodes) }
    return store
}

/// An administrator's own blocking connection to one node (CLUSTER SETSLOT, MIGRATE, INFO).
final class ClusterAdmin {
    let node: RedisNodeAddress
    private let connection: RedisConnection

    init(_ cluster: RedisTestCluster, node index: Int) throws {
        node = RedisNodeAddress(host: cluster.host, port: cluster.ports[index])
        connection = try RedisConnection(try RedisReplicationConfiguration(url: cluster.url(ofNode: index)))
    }

    @discardableResult
    func command(_ arguments: String...) throws -> RedisReply {
        try connection.command(arguments.map { Array($0.utf8) })
    }

    func command(_ arguments: [String]) throws -> RedisReply {
        try connection.command(arguments.map { Array($0.utf8) })
    }

    var id: String { get throws { try command("CLUSTER", "MYID").text ?? "" } }

    /// A field of `INFO <section>` (`cmdstat_asking` → its `calls`, `errorstat_MOVED` → its `count`).
    func counter(_ section: String, _ line: String) throws -> Int {
        let info = try command("INFO", section).text ?? ""
        guard let found = info.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("\(line):") }),
            let field = found.dropFirst(line.count + 1).split(separator: ",").first?.split(separator: "=").last
        else { return 0 }
        return Int(field) ?? 0
    }
}

/// One namespace name per node (in node order), each in a slot that node owns.
func namespacesOnEachNode(_ cluster: RedisTestCluster, _ configuration: RedisSecondLevelConfiguration) throws
    -> [String]
{
    let (map, _) = RedisClusterMap.discover(configuration.connection, known: [])
    var chosen: [String?] = Array(repeating: nil, count: cluster.ports.count)
    for candidate in 0..<10_000 where chosen.contains(nil) {
        let name = "ns\(candidate)"
        guard let owner = map[RedisClusterSlot.of(Array(name.utf8))],
            let index = cluster.ports.firstIndex(of: owner.port),
            chosen[index] == nil
        else { continue }
        chosen[index] = name
    }
    return try chosen.map { try #require($0) }
}

/// Whether `read` is a miss in epoch 0 under a namespace generation past the initial one (`0.<n>`, n ≥ 1): a cleared
/// namespace on a primary with a replica, where a clear step the replica did not confirm within `WAIT`'s bound is
/// sent again and moves the generation once more.
func movedOnMiss(_ read: SecondLevelRead) -> Bool {
    guard case .miss(let generation) = read, let (epoch, moved) = RedisSecondLevelCommands.parts(of: generation.token),
        let count = UInt64(moved)
    else { return false }
    return epoch == "0" && count >= 1
}
