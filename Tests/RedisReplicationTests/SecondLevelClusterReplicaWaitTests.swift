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
    /// One six-node cluster for both halves (a cluster costs seconds of both cores, which timing-sensitive tests
    /// running beside this suite feel): first the healthy case, then the failover.
    @Test("a clear a replica confirmed holds; one taken while the replica was cut off never returns after failover")
    func unconfirmedClearSurvivesFailover() async throws {
        let cluster = try await RedisTestCluster.start(replicasPerPrimary: 1)
        var configuration = try clusterConfiguration(cluster, label: "cluster-wait")
        configuration.clearDeadline = .milliseconds(100)
        // Confirmation is asked until the failover, however long a loaded machine takes to kill the primary.
        configuration.replicaConfirmationAttempts = 100_000
        let store = try await connectedClusterStore(configuration)

        // Healthy: each namespace clear waits for its primary's replica, is counted once, and reads are unharmed.
        let owned = try namespacesOnPrimaries(cluster, configuration, each: 3)
        for (node, namespaces) in owned {
            for namespace in namespaces {
                try await writeAndSettle(store, [UInt8(node)], for: key(namespace, "a"), generation: initialGeneration)
            }
        }
        for namespaces in owned.values { await store.clearNamespace(SecondLevelNamespace(namespaces[0])) }
        await store.clearTags([SecondLevelTag("nothing")], in: SecondLevelNamespace(owned.values.first?[1] ?? ""))
        try await waitUntil { store.statistics().clears == owned.count + 1 }
        for (node, namespaces) in owned {
            let cleared = await store.read(key(namespaces[0], "a"), deadline: patientDeadline)
            #expect(movedOnMiss(cleared))
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

        // Failover: a clear the primary took while its replica was cut off and paused.
        let holder = try epochHolder(cluster, configuration)
        let victim = try #require(owned.keys.sorted().first { $0 != holder })
        let namespace = try #require(owned[victim]?[2])
        let replica = try #require(try cluster.replica(of: victim))
        let admin = try ClusterAdmin(cluster, node: victim)
        try await waitUntil { try admin.command("WAIT", "1", "200") == .integer(1) }  // the replica has the value

        cluster.pause(replica)
        // The primary drops its replica's link: nothing it takes from now on reaches the replica.
        #expect(try admin.command("CLIENT", "KILL", "TYPE", "replica") == .integer(1))
        let clearsBefore = store.statistics().clears
        await store.clearNamespace(SecondLevelNamespace(namespace))  // returns by its deadline
        await cluster.kill(victim)
        cluster.resume(replica)
        try await cluster.waitUntilPromoted(replica)
        try await waitUntil { store.nodes == (3, 3) && store.statistics().clears > clearsBefore }

        let read = await store.read(key(namespace, "a"), deadline: patientDeadline)
        #expect(read == .miss(generation: SecondLevelGeneration(token: "0.1")), "after failover: \(read)")
        await store.shutdown()
        await cluster.stop()
    }
}
