import FixtureSupport
import Foundation
import Testing
import UnifiedCache

@testable import RedisReplication

@Suite("Redis second level on a 3-primary Redis Cluster: routed by slot, MOVED and ASK followed", .serialized)
struct SecondLevelClusterTests {
    @Test("the slot of a key is CRC16 of its hash tag, as the server's CLUSTER KEYSLOT computes it")
    func slotsMatchTheServer() async throws {
        #expect(RedisClusterSlot.crc16(Array("123456789".utf8)[...]) == 0x31C3)  // the specification's check value
        let cluster = try await SharedTestCluster.get()
        let admin = try ClusterAdmin(cluster, node: 0)
        let keys = [
            "a", "foo", "{user1000}.following", "{user1000}.followers", "foo{}{bar}", "foo{{bar}}zap", "{}x",
            "ucache:l2:{Ab-_9zQ}g", "ucache:l2:{Ab-_9zQ}v:3:name", "épée",
        ]
        for key in keys {
            guard case .integer(let slot) = try admin.command("CLUSTER", "KEYSLOT", key) else {
                Issue.record("CLUSTER KEYSLOT did not answer a number for \(key)")
                continue
            }
            #expect(Int(slot) == RedisClusterSlot.of(Array(key.utf8)), "slot of \(key)")
        }
        let keysOfOneNamespace = RedisSecondLevelKeys(prefix: "p:")
        let namespace = SecondLevelNamespace("Zm9vYmFy")
        let slots = Set(
            [
                keysOfOneNamespace.generation(namespace), keysOfOneNamespace.value(namespace, epoch: "7", name: "n"),
                keysOfOneNamespace.tag(namespace, epoch: "7", tag: "t"),
            ].map(RedisClusterSlot.of))
        #expect(slots.count == 1)  // a namespace's keys share one slot
    }

    @Test("reads, writes, namespace, tag and fleet-wide clears work across namespaces on every primary")
    func acrossSlots() async throws {
        let cluster = try await SharedTestCluster.get()
        let configuration = try clusterConfiguration(cluster, label: "cluster-crud")
        let store = try await connectedClusterStore(configuration)
        let namespaces = try namespacesOnEachNode(cluster, configuration)
        let tag = SecondLevelTag("balances")
        for (index, namespace) in namespaces.enumerated() {
            try await writeAndSettle(
                store, [UInt8(index)], for: key(namespace, "a"), generation: initialGeneration, tags: [tag])
            try await writeAndSettle(store, [9], for: key(namespace, "b"), generation: initialGeneration)
        }
        for (index, namespace) in namespaces.enumerated() {
            #expect(
                await store.read(key(namespace, "a"), deadline: patientDeadline)
                    == .hit([UInt8(index)], generation: initialGeneration))
        }

        await store.clearNamespace(SecondLevelNamespace(namespaces[0]))
        #expect(
            await store.read(key(namespaces[0], "a"), deadline: patientDeadline)
                == .miss(generation: SecondLevelGeneration(token: "0.1")))
        await store.clearTags([tag], in: SecondLevelNamespace(namespaces[1]))
        #expect(
            await store.read(key(namespaces[1], "a"), deadline: patientDeadline) == .miss(generation: initialGeneration)
        )
        #expect(
            await store.read(key(namespaces[1], "b"), deadline: patientDeadline)
                == .hit([9], generation: initialGeneration))
        #expect(
            await store.read(key(namespaces[2], "a"), deadline: patientDeadline)
                == .hit([2], generation: initialGeneration))

        await store.clearAll()
        #expect(
            await store.read(key(namespaces[2], "a"), deadline: patientDeadline)
                == .miss(generation: SecondLevelGeneration(token: "1.0")))
        #expect(
            await store.read(key(namespaces[0], "b"), deadline: patientDeadline)
                == .miss(generation: SecondLevelGeneration(token: "1.1")))
        let statistics = store.statistics()
        #expect(statistics.errors == 0 && statistics.timeouts == 0 && statistics.droppedWrites == 0)
        #expect(statistics.clears == 3 && statistics.writes == 6)
        await store.shutdown()
    }

    @Test("a fleet-wide clear made by another store reaches this one's reads with its next health check")
    func clearAllFromAnotherStore() async throws {
        let cluster = try await SharedTestCluster.get()
        let configuration = try clusterConfiguration(cluster, label: "cluster-epoch")
        let (one, other) = (
            try await connectedClusterStore(configuration), try await connectedClusterStore(configuration)
        )
        try await writeAndSettle(one, [1], for: key("alice", "a"), generation: initialGeneration)
        #expect(
            await other.read(key("alice", "a"), deadline: patientDeadline) == .hit([1], generation: initialGeneration))

        await one.clearAll()
        try await waitUntil {
            await other.read(key("alice", "a"), deadline: patientDeadline)
                == .miss(generation: SecondLevelGeneration(token: "1.0"))
        }
        await one.shutdown()
        await other.shutdown()
    }

    @Test("a tag clear made before this store learnt another's fleet-wide clear still reaches the new epoch's values")
    func tagClearBeforeTheEpochArrives() async throws {
        let cluster = try await SharedTestCluster.get()
        let configuration = try clusterConfiguration(cluster, label: "cluster-epoch-tags")
        var slow = configuration
        slow.connection.pingInterval = .seconds(3_600)  // this store will not read the epoch again by itself
        let (one, other) = (try await connectedClusterStore(configuration), try await connectedClusterStore(slow))
        let tag = SecondLevelTag("balances")
        await one.clearAll()
        let moved = SecondLevelGeneration(token: "1.0")
        try await writeAndSettle(one, [1], for: key("alice", "a"), generation: moved, tags: [tag])
        #expect(await one.read(key("alice", "a"), deadline: patientDeadline) == .hit([1], generation: moved))
        #expect(await other.read(key("alice", "a"), deadline: patientDeadline) == .miss(generation: initialGeneration))

        await other.clearTags([tag], in: SecondLevelNamespace("alice"))
        #expect(await one.read(key("alice", "a"), deadline: patientDeadline) == .miss(generation: moved))
        await one.shutdown()
        await other.shutdown()
    }

    @Test("a slot migrated during reads: ASK then MOVED are followed, every read a hit with its own value")
    func slotMigratedDuringReads() async throws {
        let cluster = try await RedisTestCluster.start()
        let configuration = try clusterConfiguration(cluster, label: "cluster-migrate")
        let store = try await connectedClusterStore(configuration)
        let namespace = try namespacesOnEachNode(cluster, configuration)[0]
        let slot = RedisClusterSlot.of(Array(namespace.utf8))
        let names = (0..<8).map { "entry\($0)" }
        for (index, name) in names.enumerated() {
            try await writeAndSettle(
                store, [UInt8(index), 7], for: key(namespace, name), generation: initialGeneration)
        }
        let (source, target, third) = (
            try ClusterAdmin(cluster, node: 0), try ClusterAdmin(cluster, node: 1), try ClusterAdmin(cluster, node: 2)
        )
        let (sourceID, targetID) = (try source.id, try target.id)
        let askingBefore = try target.counter("commandstats", "cmdstat_asking")
        let movedBefore = try source.counter("errorstats", "errorstat_MOVED")

        // Readers run through every step of the migration.
        let reading = Task {
            var wrong = 0
            var reads = 0
            while !Task.isCancelled {
                for (index, name) in names.enumerated() {
                    let read = await store.read(key(namespace, name), deadline: patientDeadline)
                    reads += 1
                    if read != .hit([UInt8(index), 7], generation: initialGeneration) { wrong += 1 }
                }
            }
            return (reads, wrong)
        }
        try target.command("CLUSTER", "SETSLOT", String(slot), "IMPORTING", sourceID)
        try source.command("CLUSTER", "SETSLOT", String(slot), "MIGRATING", targetID)
        guard case .array(let found) = try source.command("CLUSTER", "GETKEYSINSLOT", String(slot), "100") else {
            throw FixtureError("CLUSTER GETKEYSINSLOT did not answer a list")
        }
        let slotKeys = found.compactMap(\.text)
        #expect(slotKeys.count == names.count + 1)  // the values and the generation key
        let migrated = try source.command(
            ["MIGRATE", cluster.host, String(cluster.ports[1]), "", "0", "5000", "AUTH", cluster.password, "KEYS"]
                + slotKeys)
        #expect(migrated == .status("OK"))
        // The slot is still the source's: it answers ASK for the keys that moved.
        for (index, name) in names.enumerated() {
            #expect(
                await store.read(key(namespace, name), deadline: patientDeadline)
                    == .hit([UInt8(index), 7], generation: initialGeneration))
        }
        #expect(try target.counter("commandstats", "cmdstat_asking") >= askingBefore + names.count)

        for admin in [target, source, third] { try admin.command("CLUSTER", "SETSLOT", String(slot), "NODE", targetID) }
        // Now the source answers MOVED; the store updates its map and sends the slot's commands to the target.
        for (index, name) in names.enumerated() {
            #expect(
                await store.read(key(namespace, name), deadline: patientDeadline)
                    == .hit([UInt8(index), 7], generation: initialGeneration))
        }
        #expect(try source.counter("errorstats", "errorstat_MOVED") > movedBefore)
        try await writeAndSettle(store, [42], for: key(namespace, "after"), generation: initialGeneration)
        #expect(
            await store.read(key(namespace, "after"), deadline: patientDeadline)
                == .hit([42], generation: initialGeneration))
        #expect(try target.command("EXISTS", "\(configuration.keyPrefix){\(namespace)}v:0:after") == .integer(1))

        reading.cancel()
        let (reads, wrong) = await reading.value
        #expect(reads > 0)
        #expect(wrong == 0, "\(wrong) of \(reads) reads during the migration were not the value written")
        let statistics = store.statistics()
        #expect(statistics.errors == 0 && statistics.timeouts == 0 && statistics.droppedWrites == 0)
        await store.shutdown()
        await cluster.stop()
    }
}
