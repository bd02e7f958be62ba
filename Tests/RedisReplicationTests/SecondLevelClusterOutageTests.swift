import FixtureSupport
import Foundation
import Testing
import UnifiedCache

@testable import RedisReplication

@Suite("Redis second level on a cluster with a primary down: only its shard misses, nothing stale after", .serialized)
struct SecondLevelClusterOutageTests {
    @Test("a killed primary: its reads fail fast and its writes are dropped, counted; the other shards serve")
    func primaryKilled() async throws {
        let cluster = try await RedisTestCluster.start()
        let configuration = try clusterConfiguration(cluster, label: "cluster-kill")
        let store = try await connectedClusterStore(configuration)
        let namespaces = try namespacesOnEachNode(cluster, configuration)
        for (index, namespace) in namespaces.enumerated() {
            try await writeAndSettle(store, [UInt8(index)], for: key(namespace, "a"), generation: initialGeneration)
        }

        await cluster.kill(2)
        try await waitUntil { store.nodes.connected == 2 }
        #expect(store.statistics().isConnected)
        for _ in 0..<3 {
            for index in 0..<2 {
                #expect(
                    await store.read(key(namespaces[index], "a"), deadline: patientDeadline)
                        == .hit([UInt8(index)], generation: initialGeneration))
            }
            #expect(await store.read(key(namespaces[2], "a"), deadline: patientDeadline) == .unavailable(.error))
        }
        let before = store.statistics()
        try await writeAndSettle(store, [5], for: key(namespaces[2], "b"), generation: initialGeneration)
        try await writeAndSettle(store, [6], for: key(namespaces[0], "b"), generation: initialGeneration)
        let after = store.statistics()
        #expect(after.droppedWrites == before.droppedWrites + 1 && after.writes == before.writes + 1)
        #expect(after.errors == 3 && after.timeouts == 0)
        #expect(after.hits == 6 + 0)

        try await cluster.restart(2)
        // The node kept its data (append-only file): the shard serves again.
        try await expectServedAgain(store, key(namespaces[2], "a"), [2])
        await store.shutdown()
        await cluster.stop()
    }

    @Test("a paused primary: its reads answer by their deadline, the other shards keep serving on time meanwhile")
    func primaryPaused() async throws {
        let cluster = try await RedisTestCluster.start()
        let configuration = try clusterConfiguration(cluster, label: "cluster-pause")
        let store = try await connectedClusterStore(configuration)
        let namespaces = try namespacesOnEachNode(cluster, configuration)
        for (index, namespace) in namespaces.enumerated() {
            try await writeAndSettle(store, [UInt8(index)], for: key(namespace, "a"), generation: initialGeneration)
        }

        cluster.pause(2)
        let stuck = await store.read(key(namespaces[2], "a"), deadline: .milliseconds(50))
        #expect(stuck == .unavailable(.timeout))
        // The node's link is dropped after the command timeout; reconnecting to a frozen node (which accepts TCP but
        // never answers AUTH) happens off the store's thread, so reads of the other shards keep their deadlines.
        try await waitUntil { store.nodes.connected == 2 }
        let deadline = Duration.milliseconds(TestTiming.milliseconds(300))
        let until = ContinuousClock.now + configuration.connection.commandTimeout * 2
        var reads = 0
        while ContinuousClock.now < until {
            let index = reads % 2
            let read = await store.read(key(namespaces[index], "a"), deadline: deadline)
            #expect(read == .hit([UInt8(index)], generation: initialGeneration))
            reads += 1
        }
        #expect(store.statistics().timeouts == 1)

        cluster.resume(2)
        try await expectServedAgain(store, key(namespaces[2], "a"), [2])
        await store.shutdown()
        await cluster.stop()
    }

    @Test("a clear issued while its primary is down is applied when it returns, before any read of it")
    func clearWhileShardDown() async throws {
        let cluster = try await RedisTestCluster.start()
        var configuration = try clusterConfiguration(cluster, label: "cluster-stale")
        configuration.clearDeadline = .milliseconds(100)
        let store = try await connectedClusterStore(configuration)
        let namespace = try namespacesOnEachNode(cluster, configuration)[2]
        try await writeAndSettle(store, [1], for: key(namespace, "a"), generation: initialGeneration)

        await cluster.kill(2)
        try await waitUntil { store.nodes.connected == 2 }
        let restart: @Sendable () async -> Void = { try? await cluster.restart(2) }
        let (_, returnedByItself) = await whileRedisIsStuck(recover: restart) {
            await store.clearNamespace(SecondLevelNamespace(namespace))
        }
        #expect(returnedByItself, "the clear waited for the shard instead of its deadline")
        #expect(store.statistics().clears == 0)

        try await cluster.restart(2)  // with the value and the old generation still in its append-only file
        let admin = try ClusterAdmin(cluster, node: 2)
        // The old value came back with the node (a clear moves the generation and leaves values to their TTL).
        #expect(try admin.command("EXISTS", "\(configuration.keyPrefix){\(namespace)}v:0:a") == .integer(1))
        try await waitUntil { store.statistics().clears == 1 }
        #expect(
            await store.read(key(namespace, "a"), deadline: patientDeadline)
                == .miss(generation: SecondLevelGeneration(token: "0.1")))
        await store.shutdown()
        await cluster.stop()
    }

    @Test(
        "a store started while the epoch's primary is down, no replica: misses and dropped writes, then the new epoch")
    func storeStartsWhileEpochPrimaryDown() async throws {
        let cluster = try await RedisTestCluster.start()
        let configuration = try clusterConfiguration(cluster, label: "cluster-epoch-down")
        let first = try await connectedClusterStore(configuration)
        let victim = try epochHolder(cluster, configuration)
        let owned = try namespacesOnPrimaries(cluster, configuration, each: 1)
        for (node, namespaces) in owned {
            try await writeAndSettle(
                first, [UInt8(node)], for: key(namespaces[0], "old"), generation: initialGeneration)
        }
        await first.clearAll()  // the epoch moves: only values written after it may be served
        var current: [Int: SecondLevelGeneration] = [:]
        for (node, namespaces) in owned {
            let moved = generation(of: await first.read(key(namespaces[0], "new"), deadline: patientDeadline))
            #expect(moved != initialGeneration)
            current[node] = moved
            try await writeAndSettle(first, [UInt8(node + 10)], for: key(namespaces[0], "new"), generation: moved)
        }
        await first.shutdown()

        await cluster.kill(victim)
        let second = RedisSecondLevelStore(configuration: configuration)
        // Connected to the two other primaries, but without the epoch it sends nothing: every read fails at once
        // (a miss for the caller), every write is dropped.
        try await waitUntil { second.nodes.connected == 2 }
        #expect(!second.statistics().isConnected)
        let survivor = try #require(owned.first { $0.key != victim })
        let moved = try #require(current[survivor.key])
        #expect(
            await second.read(key(survivor.value[0], "new"), deadline: patientDeadline) == .unavailable(.error))
        try await writeAndSettle(second, [99], for: key(survivor.value[0], "while-down"), generation: moved)
        #expect(second.statistics().droppedWrites == 1 && second.statistics().timeouts == 0)

        try await cluster.restart(victim)
        try await waitUntil { second.statistics().isConnected && second.nodes == (3, 3) }
        for (node, namespaces) in owned {
            let generation = try #require(current[node])
            #expect(
                await second.read(key(namespaces[0], "new"), deadline: patientDeadline)
                    == .hit([UInt8(node + 10)], generation: generation))
            #expect(
                await second.read(key(namespaces[0], "old"), deadline: patientDeadline)
                    == .miss(generation: generation))
        }
        #expect(
            await second.read(key(survivor.value[0], "while-down"), deadline: patientDeadline)
                == .miss(generation: moved))
        await second.shutdown()
        await cluster.stop()
    }
}

/// The store is connected to every primary again and serves `entry` (on the node that came back) as `value`.
private func expectServedAgain(_ store: RedisSecondLevelStore, _ entry: SecondLevelKey, _ value: [UInt8]) async throws {
    try await waitUntil { store.nodes == (3, 3) }
    #expect(await store.read(entry, deadline: patientDeadline) == .hit(value, generation: initialGeneration))
}
