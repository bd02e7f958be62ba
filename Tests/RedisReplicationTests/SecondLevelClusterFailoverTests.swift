import FixtureSupport
import Foundation
import Synchronization
import Testing
import UnifiedCache

@testable import RedisReplication

@Suite("Redis second level on a cluster with replicas: a failover is followed, nothing stale after", .serialized)
struct SecondLevelClusterFailoverTests {
    @Test(
        "a primary killed: its replica takes over, the store finds it and serves the shard; a clear made meanwhile holds"
    )
    func primaryFailsOver() async throws {
        let cluster = try await RedisTestCluster.start(replicasPerPrimary: 1)
        var configuration = try clusterConfiguration(cluster, label: "cluster-failover")
        configuration.clearDeadline = .milliseconds(100)
        let store = try await connectedClusterStore(configuration)
        let victim = try epochHolder(cluster, configuration)  // its epoch polls must find the new primary too
        let promoted = try #require(try cluster.replica(of: victim))
        let owned = try namespacesOnPrimaries(cluster, configuration, each: 2)
        for (node, namespaces) in owned {
            for namespace in namespaces {
                try await writeAndSettle(store, [UInt8(node)], for: key(namespace, "a"), generation: initialGeneration)
            }
        }
        try awaitReplicas(cluster, configuration, owned)
        let (kept, cleared) = try (#require(owned[victim]?.first), #require(owned[victim]?.last))

        // Every namespace is read once per poll of each wait below: through the outage, the held clear and the
        // store's return to the promoted replica.
        let reader = FailoverReader(store, namespaces: owned.flatMap { node, names in names.map { ($0, node) } })
        // The replica takes over only once the test has seen the outage: a run whose cooperative pool was starved
        // for the two seconds of a failover otherwise saw none of it.
        let replica = try ClusterAdmin(cluster, node: promoted)
        try replica.command("CONFIG", "SET", "cluster-replica-no-failover", "yes")
        await cluster.kill(victim)
        try await waitUntil {
            await reader.round()
            return store.nodes.connected == 2
        }
        // The shard has no primary: the clear is held, and the call returns by its deadline.
        await store.clearNamespace(SecondLevelNamespace(cleared))
        await reader.round()
        // No replica can be promoted yet: nothing could have applied the clear, and a read of the shard fails fast.
        #expect(store.statistics().clears == 0)
        #expect(await store.read(key(kept, "a"), deadline: patientDeadline) == .unavailable(.error))
        try replica.command("CONFIG", "SET", "cluster-replica-no-failover", "no")
        try await cluster.waitUntilPromoted(promoted)
        try await waitUntil {
            await reader.round()
            return store.nodes == (3, 3) && store.statistics().clears == 1
        }
        await reader.round()
        let outcomes = reader.outcomes

        // Reads went on through the outage: the failed shard failed fast meanwhile.
        let newGeneration = SecondLevelGeneration(token: "0.1")
        var clearedSeen = false
        for (namespace, node, read) in outcomes {
            if node != victim {
                #expect(read == .hit([UInt8(node)], generation: initialGeneration), "another shard missed: \(read)")
            } else if namespace == cleared {
                // Once the clear is applied, never the old value again.
                if read == .miss(generation: newGeneration) { clearedSeen = true }
                let allowed =
                    read == .unavailable(.error) || read == .miss(generation: newGeneration)
                    || (!clearedSeen && read == .hit([UInt8(node)], generation: initialGeneration))
                #expect(allowed, "the cleared namespace answered \(read)")
            } else {
                #expect(
                    read == .unavailable(.error) || read == .hit([UInt8(node)], generation: initialGeneration),
                    "the failed shard answered \(read)")
            }
        }
        #expect(store.statistics().timeouts == 0)
        // After the failover: the values written before the kill (the replica had them), the clear held.
        #expect(
            await store.read(key(kept, "a"), deadline: patientDeadline)
                == .hit([UInt8(victim)], generation: initialGeneration))
        #expect(await store.read(key(cleared, "a"), deadline: patientDeadline) == .miss(generation: newGeneration))
        // And the new primary takes writes.
        try await writeAndSettle(store, [42], for: key(kept, "b"), generation: initialGeneration)
        #expect(
            await store.read(key(kept, "b"), deadline: patientDeadline) == .hit([42], generation: initialGeneration))
        let admin = try ClusterAdmin(cluster, node: promoted)
        #expect(try admin.command("EXISTS", "\(configuration.keyPrefix){\(kept)}v:0:b") == .integer(1))
        await store.shutdown()
        await cluster.stop()
    }

    @Test(
        "a store started while the primary holding the epoch is down gets its L2 from the promoted replica, no older epoch"
    )
    func storeStartsDuringFailover() async throws {
        let cluster = try await RedisTestCluster.start(replicasPerPrimary: 1)
        let configuration = try clusterConfiguration(cluster, label: "cluster-start-failover")
        let first = try await connectedClusterStore(configuration)
        let victim = try epochHolder(cluster, configuration)
        let promoted = try #require(try cluster.replica(of: victim))
        let owned = try namespacesOnPrimaries(cluster, configuration, each: 1)
        for (node, namespaces) in owned {
            try await writeAndSettle(
                first, [UInt8(node)], for: key(namespaces[0], "old"), generation: initialGeneration)
        }
        // A fleet-wide clear moves the epoch; values written after it are the only ones a store may serve.
        await first.clearAll()
        var current: [Int: SecondLevelGeneration] = [:]
        for (node, namespaces) in owned {
            let read = await first.read(key(namespaces[0], "new"), deadline: patientDeadline)
            let moved = generation(of: read)
            current[node] = moved
            #expect(moved != initialGeneration)
            try await writeAndSettle(first, [UInt8(node + 10)], for: key(namespaces[0], "new"), generation: moved)
        }
        try awaitReplicas(cluster, configuration, owned)
        await first.shutdown()

        await cluster.kill(victim)
        let second = RedisSecondLevelStore(configuration: configuration)
        try await cluster.waitUntilPromoted(promoted)
        try await waitUntil { second.statistics().isConnected && second.nodes == (3, 3) }
        for (node, namespaces) in owned {
            let moved = try #require(current[node])
            #expect(
                await second.read(key(namespaces[0], "new"), deadline: patientDeadline)
                    == .hit([UInt8(node + 10)], generation: moved))
            #expect(
                await second.read(key(namespaces[0], "old"), deadline: patientDeadline)
                    == .miss(generation: moved))
        }
        #expect(second.statistics().timeouts == 0)
        await second.shutdown()
        await cluster.stop()
    }

    @Test(
        "a manual failover (CLUSTER FAILOVER): the store follows the MOVED, no read fails, clears reach the new primary"
    )
    func manualFailover() async throws {
        let cluster = try await RedisTestCluster.start(replicasPerPrimary: 1)
        let configuration = try clusterConfiguration(cluster, label: "cluster-manual-failover")
        let store = try await connectedClusterStore(configuration)
        let victim = try epochHolder(cluster, configuration)
        let promoted = try #require(try cluster.replica(of: victim))
        let owned = try namespacesOnPrimaries(cluster, configuration, each: 2)
        for (node, namespaces) in owned {
            for namespace in namespaces {
                try await writeAndSettle(store, [UInt8(node)], for: key(namespace, "a"), generation: initialGeneration)
            }
        }
        let (kept, cleared) = try (#require(owned[victim]?.first), #require(owned[victim]?.last))

        // The replica takes over once it has everything its primary had; the old primary stays up, as a replica.
        #expect(try ClusterAdmin(cluster, node: promoted).command("CLUSTER", "FAILOVER") == .status("OK"))
        try await cluster.waitUntilPromoted(promoted)
        try await waitUntil { try !cluster.isPrimary(victim) }
        await store.clearNamespace(SecondLevelNamespace(cleared))
        for (node, namespaces) in owned where node != victim {
            #expect(
                await store.read(key(namespaces[0], "a"), deadline: patientDeadline)
                    == .hit([UInt8(node)], generation: initialGeneration))
        }
        #expect(
            await store.read(key(kept, "a"), deadline: patientDeadline)
                == .hit([UInt8(victim)], generation: initialGeneration))
        // Cleared: a miss under a generation moved on from the initial one. Once or more: a step the new primary's
        // replica (the old primary, syncing again) did not confirm within `WAIT`'s bound is sent again.
        let clearedRead = await store.read(key(cleared, "a"), deadline: patientDeadline)
        #expect(movedOnMiss(clearedRead))
        let statistics = store.statistics()
        #expect(statistics.errors == 0 && statistics.timeouts == 0 && statistics.clears == 1)
        try await waitUntil { store.nodes == (3, 3) }
        await store.shutdown()
        await cluster.stop()
    }
}

/// The index of the primary that holds the fleet epoch key.
func epochHolder(_ cluster: RedisTestCluster, _ configuration: RedisSecondLevelConfiguration) throws -> Int {
    let (map, _) = RedisClusterMap.discover(configuration.connection, known: [])
    let owner = try #require(map[RedisClusterSlot.of(RedisSecondLevelKeys(prefix: configuration.keyPrefix).epoch)])
    return try #require(cluster.ports.firstIndex(of: owner.port))
}

/// `each` namespace names per primary (by node index), each in a slot that primary owns.
func namespacesOnPrimaries(
    _ cluster: RedisTestCluster, _ configuration: RedisSecondLevelConfiguration, each: Int
) throws -> [Int: [String]] {
    let (map, _) = RedisClusterMap.discover(configuration.connection, known: [])
    var chosen: [Int: [String]] = [:]
    for node in map.nodes {
        chosen[try #require(cluster.ports.firstIndex(of: node.port))] = []
    }
    for candidate in 0..<10_000 where chosen.values.contains(where: { $0.count < each }) {
        let name = "ns\(candidate)"
        guard let owner = map[RedisClusterSlot.of(Array(name.utf8))],
            let index = cluster.ports.firstIndex(of: owner.port), let names = chosen[index], names.count < each
        else { continue }
        chosen[index] = names + [name]
    }
    #expect(chosen.count == 3 && chosen.values.allSatisfy { $0.count == each })
    return chosen
}

/// Waits until each primary's replica holds what the store wrote: an administrator writes on the primary, then
/// `WAIT 1 500` (the replication stream is in order, so the store's settled writes came before it).
private func awaitReplicas(
    _ cluster: RedisTestCluster, _ configuration: RedisSecondLevelConfiguration, _ owned: [Int: [String]]
) throws {
    for (node, namespaces) in owned {
        let admin = try ClusterAdmin(cluster, node: node)
        try admin.command("SET", "\(configuration.keyPrefix){\(namespaces[0])}replicated", "1")
        var acknowledged = false
        for _ in 0..<10 where !acknowledged {
            acknowledged = try admin.command("WAIT", "1", "500") == .integer(1)
        }
        #expect(acknowledged, "node \(node)'s replica did not acknowledge the writes")
    }
}

/// Reads every namespace's `a` once a round, in rounds the test drives from its waits; keeps each answer in order.
private final class FailoverReader: Sendable {
    private let store: RedisSecondLevelStore
    private let namespaces: [(name: String, node: Int)]
    private let read = Mutex<[(namespace: String, node: Int, read: SecondLevelRead)]>([])

    init(_ store: RedisSecondLevelStore, namespaces: [(String, Int)]) {
        self.store = store
        self.namespaces = namespaces.map { (name: $0.0, node: $0.1) }
    }

    /// What every round read, in order.
    var outcomes: [(namespace: String, node: Int, read: SecondLevelRead)] { read.withLock { $0 } }

    /// Reads each namespace once.
    func round() async {
        for (name, node) in namespaces {
            let outcome = await store.read(key(name, "a"), deadline: patientDeadline)
            read.withLock { $0.append((name, node, outcome)) }
        }
    }
}
