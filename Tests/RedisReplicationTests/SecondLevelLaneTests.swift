import FixtureSupport
import Foundation
import Testing
import UnifiedCache

@testable import RedisReplication

@Suite("Redis second level: reads written from the caller's thread while the loop's thread sleeps")
struct SecondLevelLaneTests {
    private let clock = ContinuousClock()

    @Test("a read made while the store is idle writes its own command and is answered with the value")
    func idleReadTakesTheLane() async throws {
        let store = try await connectedStore(
            secondLevelConfiguration(url: try await RedisTestServer.sharedURL(), label: "lane"))
        let entry = key("alice", "a")
        let value = [UInt8](repeating: 0x5A, count: 1024)
        try await writeAndSettle(store, value, for: entry, generation: initialGeneration)
        let before = store.laneReads
        for _ in 0..<20 {
            #expect(await store.read(entry, deadline: patientDeadline) == .hit(value, generation: initialGeneration))
        }
        #expect(store.laneReads > before, "no read was written from the caller's thread")
        #expect(store.statistics().hits >= 20)
        await store.shutdown()
    }

    @Test("many tasks reading at once, some on the lane and some behind it, each get their own value")
    func concurrentReads() async throws {
        let store = try await connectedStore(
            secondLevelConfiguration(url: try await RedisTestServer.sharedURL(), label: "lanemany"))
        let entries = (0..<48).map { key("ns\($0 % 4)", "entry-\($0)") }
        for (index, entry) in entries.enumerated() {
            try await writeAndSettle(store, Self.value(index), for: entry, generation: initialGeneration)
        }
        for _ in 0..<4 {
            let wrong = await withTaskGroup(of: Bool.self) { group in
                for (index, entry) in entries.enumerated() {
                    group.addTask {
                        await store.read(entry, deadline: patientDeadline)
                            == .hit(Self.value(index), generation: initialGeneration)
                    }
                }
                return await group.reduce(0) { $0 + ($1 ? 0 : 1) }
            }
            #expect(wrong == 0)
        }
        #expect(store.laneReads > 0, "no read was written from the caller's thread")
        #expect(store.statistics().hits == entries.count * 4)
        await store.shutdown()
    }

    @Test("a read right behind a write the loop has not sent yet is answered, and the write still lands")
    func readWhileTheLoopIsBusy() async throws {
        let store = try await connectedStore(
            secondLevelConfiguration(url: try await RedisTestServer.sharedURL(), label: "lanebusy"))
        try await writeAndSettle(store, [1], for: key("alice", "a"), generation: initialGeneration)
        for round in 0..<20 {
            store.write(
                [2], for: key("alice", "w\(round)"), generation: initialGeneration, timeToLive: .seconds(60), tags: [])
            #expect(
                await store.read(key("alice", "a"), deadline: patientDeadline)
                    == .hit([1], generation: initialGeneration))
        }
        try await waitUntil { store.statistics().writes == 21 }
        #expect(
            await store.read(key("alice", "w19"), deadline: patientDeadline) == .hit([2], generation: initialGeneration)
        )
        await store.shutdown()
    }

    @Test("Redis paused: a read written from the caller's thread still answers .timeout by its deadline")
    func pausedLaneReadKeepsItsDeadline() async throws {
        let redis = try await OwnRedis("lanepause") {
            $0.connection.commandTimeout = .seconds(30)  // the connection survives the pause
            $0.connection.pingInterval = .seconds(30)  // the loop's thread sleeps long: the read must wake it
        }
        let (server, store) = (redis.server, redis.store)
        let entry = key("alice", "a")
        try await writeAndSettle(store, [1], for: entry, generation: initialGeneration)
        try await waitUntil { store.isLent }
        let before = store.laneReads
        server.pause()
        let started = clock.now
        let (read, returnedByItself) = await whileRedisIsStuck(recover: server.resume) {
            await store.read(entry, deadline: .milliseconds(50))
        }
        #expect(read == .unavailable(.timeout))
        #expect(returnedByItself, "the read waited for Redis instead of its deadline")
        #expect(clock.now - started >= .milliseconds(50))
        #expect(store.laneReads == before + 1, "the read did not go out from the caller's thread")
        server.resume()
        // The late reply is discarded; the next read gets its own answer.
        #expect(await store.read(entry, deadline: patientDeadline) == .hit([1], generation: initialGeneration))
        await redis.stop()
    }

    @Test("on one server, another store's clears reach the next read written from the caller's thread at once")
    func clearsFromAnotherStoreReachTheLane() async throws {
        var configuration = try secondLevelConfiguration(url: try await RedisTestServer.sharedURL(), label: "laneclr")
        configuration.connection.pingInterval = .seconds(30)  // no health check comes between the reads below
        let (reader, clearer) = (try await connectedStore(configuration), try await connectedStore(configuration))
        let entry = key("alice", "a")
        try await writeAndSettle(clearer, [1], for: entry, generation: initialGeneration)

        try await waitUntil { reader.isLent }
        #expect(await reader.read(entry, deadline: patientDeadline) == .hit([1], generation: initialGeneration))
        await clearer.clearNamespace(SecondLevelNamespace("alice"))
        try await waitUntil { reader.isLent }
        var before = reader.laneReads
        #expect(await reader.read(entry, deadline: patientDeadline) == .miss(generation: .init(token: "0.1")))
        #expect(reader.laneReads == before + 1, "the read did not go out from the caller's thread")

        try await writeAndSettle(clearer, [2], for: entry, generation: .init(token: "0.1"))
        try await waitUntil { reader.isLent }
        #expect(await reader.read(entry, deadline: patientDeadline) == .hit([2], generation: .init(token: "0.1")))
        await clearer.clearAll()
        try await waitUntil { reader.isLent }
        before = reader.laneReads
        #expect(await reader.read(entry, deadline: patientDeadline) == .miss(generation: .init(token: "1.1")))
        #expect(reader.laneReads == before + 1, "the read did not go out from the caller's thread")
        await reader.shutdown()
        await clearer.shutdown()
    }

    @Test(
        "on one server, a value another store wrote after its fleet-wide clear is found by this store's next read",
        arguments: [true, false])
    func valueWrittenAfterAFleetWideClearIsFound(onTheLane: Bool) async throws {
        let url = try await RedisTestServer.sharedURL()
        var configuration = try secondLevelConfiguration(url: url, label: onTheLane ? "movedlane" : "movedloop")
        configuration.connection.pingInterval = .seconds(30)  // no health check reads the epoch between the reads
        var readerConfiguration = configuration
        if !onTheLane { readerConfiguration.callerWait = .zero }  // every read through the store's thread
        let (reader, writer) = (try await connectedStore(readerConfiguration), try await connectedStore(configuration))
        let entry = key("alice", "a")
        try await writeAndSettle(writer, [1], for: entry, generation: initialGeneration)
        #expect(await reader.read(entry, deadline: patientDeadline) == .hit([1], generation: initialGeneration))

        // The reader still names its values under epoch 0; the writer's clear moved the fleet to 1 and wrote there.
        await writer.clearAll()
        let moved = SecondLevelGeneration(token: "1.0")
        try await writeAndSettle(writer, [2], for: entry, generation: moved)
        if onTheLane { try await waitUntil { reader.isLent } }
        let before = reader.laneReads
        #expect(await reader.read(entry, deadline: patientDeadline) == .hit([2], generation: moved))
        #expect(reader.laneReads == before + (onTheLane ? 1 : 0))
        await reader.shutdown()
        await writer.shutdown()
    }

    private static func value(_ index: Int) -> [UInt8] {
        Array("value-\(index)-".utf8) + [UInt8](repeating: UInt8(index), count: 64 + index)
    }
}
