import FixtureSupport
import Foundation
import Testing
import UnifiedCache

@testable import RedisReplication

/// A clear a primary acknowledged before its replica had it: the primary dies, the replica is promoted. Without a
/// replica's confirmation (`WAIT`) the store would count the clear as applied, and the promoted replica would serve
/// what it removed.
@Suite("Redis second level on a cluster: a clear no replica confirmed is sent again after a failover", .serialized)
struct SecondLevelClusterReplicaWaitTests {
    @Test("a clear taken while the replica was cut off and paused: after failover the old value never returns")
    func unconfirmedClearSurvivesFailover() async throws {
        let cluster = try await RedisTestCluster.start(replicasPerPrimary: 1)
        var configuration = try clusterConfiguration(cluster, label: "cluster-wait")
        configuration.clearDeadline = .milliseconds(100)
        // Confirmation is asked until the failover, however long a loaded machine takes to kill the primary.
        configuration.replicaConfirmationAttempts = 100_000
        let store = try await connectedClusterStore(configuration)
        let holder = try epochHolder(cluster, configuration)
        let owned = try namespacesOnPrimaries(cluster, configuration, each: 1)
        let victim = try #require(owned.keys.sorted().first { $0 != holder })
        let namespace = try #require(owned[victim]?.first)
        let replica = try #require(try cluster.replica(of: victim))
        try await writeAndSettle(store, [7], for: key(namespace, "a"), generation: initialGeneration)
        let admin = try ClusterAdmin(cluster, node: victim)
        try await waitUntil { try admin.command("WAIT", "1", "200") == .integer(1) }  // the replica has the value

        cluster.pause(replica)
        // The primary drops its replica's link: nothing it takes from now on reaches the replica.
        #expect(try admin.command("CLIENT", "KILL", "TYPE", "replica") == .integer(1))
        await store.clearNamespace(SecondLevelNamespace(namespace))  // returns by its deadline
        await cluster.kill(victim)
        cluster.resume(replica)
        try await cluster.waitUntilPromoted(replica)
        try await waitUntil { store.nodes == (3, 3) && store.statistics().clears >= 1 }

        let read = await store.read(key(namespace, "a"), deadline: patientDeadline)
        #expect(read == .miss(generation: SecondLevelGeneration(token: "0.1")), "after failover: \(read)")
        await store.shutdown()
        await cluster.stop()
    }

    @Test("on a healthy cluster with replicas a clear is confirmed at once: applied once, no error, reads unharmed")
    func confirmedClear() async throws {
        let cluster = try await RedisTestCluster.start(replicasPerPrimary: 1)
        let configuration = try clusterConfiguration(cluster, label: "cluster-wait-healthy")
        let store = try await connectedClusterStore(configuration)
        let owned = try namespacesOnPrimaries(cluster, configuration, each: 2)
        for (node, namespaces) in owned {
            for namespace in namespaces {
                try await writeAndSettle(store, [UInt8(node)], for: key(namespace, "a"), generation: initialGeneration)
            }
        }
        for namespaces in owned.values { await store.clearNamespace(SecondLevelNamespace(namespaces[0])) }
        await store.clearTags([SecondLevelTag("nothing")], in: SecondLevelNamespace(owned.values.first?[1] ?? ""))
        try await waitUntil { store.statistics().clears == owned.count + 1 }
        for (node, namespaces) in owned {
            #expect(
                await store.read(key(namespaces[0], "a"), deadline: patientDeadline)
                    == .miss(generation: SecondLevelGeneration(token: "0.1")))
            #expect(
                await store.read(key(namespaces[1], "a"), deadline: patientDeadline)
                    == .hit([UInt8(node)], generation: initialGeneration))
        }
        #expect(store.statistics().errors == 0 && store.lastError == nil)
        var waits = 0
        for node in owned.keys {
            waits += try ClusterAdmin(cluster, node: node).counter("commandstats", "cmdstat_wait")
        }
        #expect(waits >= owned.count)  // each namespace clear waited for its primary's replica
        await store.shutdown()
        await cluster.stop()
    }
}
