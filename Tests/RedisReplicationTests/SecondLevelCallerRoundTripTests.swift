import FixtureSupport
import Foundation
import Testing
import UnifiedCache

@testable import RedisReplication

@Suite("Redis second level: an idle store's reads make their round trip on the caller's thread")
struct SecondLevelCallerRoundTripTests {
    @Test("reads made while the store is idle are answered on the caller's thread, each with its own value")
    func idleReadsAreAnsweredInPlace() async throws {
        var configuration = try secondLevelConfiguration(url: try await RedisTestServer.sharedURL(), label: "inplace")
        configuration.connection.pingInterval = .seconds(30)  // no health check wakes the loop's thread meanwhile
        configuration.callerWait = patientDeadline  // a slow machine's reply still comes within the caller's wait
        let store = try await connectedStore(configuration)
        let entries = (0..<10).map { key("alice", "entry-\($0)") }
        for (index, entry) in entries.enumerated() {
            try await writeAndSettle(store, [UInt8(index)], for: entry, generation: initialGeneration)
        }
        try await waitUntil { store.isLent }
        let before = (store.laneReads, store.laneOutcomes)
        for (index, entry) in entries.enumerated() {
            #expect(
                await store.read(entry, deadline: patientDeadline)
                    == .hit([UInt8(index)], generation: initialGeneration))
        }
        #expect(
            await store.read(key("alice", "absent"), deadline: patientDeadline) == .miss(generation: initialGeneration))
        #expect(store.laneReads == before.0 + 11, "a read went through the loop's thread")
        #expect(store.laneOutcomes.answered == before.1.answered + 11)
        #expect(store.laneOutcomes.handedOver == before.1.handedOver)
        #expect(store.isLent, "the caller did not give the connection back")
        let statistics = store.statistics()
        #expect(statistics.hits >= 10 && statistics.misses >= 1)
        await store.shutdown()
    }

    @Test("a reply later than the caller's wait is handed to the store's thread and still answered with the value")
    func lateReplyIsHandedOver() async throws {
        let redis = try await OwnRedis("handover") {
            $0.connection.commandTimeout = .seconds(30)  // the connection survives the pause
            $0.connection.pingInterval = .seconds(30)
            $0.callerWait = .milliseconds(1)
        }
        let (server, store) = (redis.server, redis.store)
        let entry = key("alice", "a")
        try await writeAndSettle(store, [7], for: entry, generation: initialGeneration)
        try await waitUntil { store.isLent }
        let before = store.laneOutcomes
        server.pause()
        let read = Task { await store.read(entry, deadline: patientDeadline) }
        try await waitUntil { store.laneOutcomes.handedOver == before.handedOver + 1 }
        server.resume()
        #expect(await read.value == .hit([7], generation: initialGeneration))
        #expect(store.laneOutcomes.answered == before.answered, "the paused reply was read on the caller's thread")
        // The store's thread lends the connection again once the reply is in; the next read is answered in place.
        try await waitUntil { store.isLent }
        #expect(await store.read(entry, deadline: patientDeadline) == .hit([7], generation: initialGeneration))
        await redis.stop()
    }

    @Test("a connection Redis closes while it is lent is noticed at once, and reads work again after the reconnection")
    func closedWhileLentIsNoticed() async throws {
        let redis = try await OwnRedis("lentclose") {
            $0.connection.pingInterval = .seconds(30)  // only the closed connection can wake the loop's thread
        }
        let store = redis.store
        let entry = key("alice", "a")
        try await writeAndSettle(store, [1], for: entry, generation: initialGeneration)
        try await waitUntil { store.isLent }
        #expect(store.lastError == nil)
        let raw = try RawRedis(redis.configuration)
        #expect(try raw.integer("CLIENT", "KILL", "TYPE", "normal", "SKIPME", "yes") == 1)
        try await waitUntil { store.lastError?.code == .connectionLost }
        try await waitUntil { store.statistics().isConnected && store.isLent }
        #expect(await store.read(entry, deadline: patientDeadline) == .hit([1], generation: initialGeneration))
        await redis.stop()
    }

    @Test("with no caller wait, every read goes through the store's thread and is answered")
    func noCallerWait() async throws {
        var configuration = try secondLevelConfiguration(url: try await RedisTestServer.sharedURL(), label: "nowait")
        configuration.callerWait = .zero
        let store = try await connectedStore(configuration)
        let entry = key("alice", "a")
        try await writeAndSettle(store, [3], for: entry, generation: initialGeneration)
        try await waitUntil { store.isLent }
        for _ in 0..<5 {
            #expect(await store.read(entry, deadline: patientDeadline) == .hit([3], generation: initialGeneration))
        }
        #expect(store.laneReads == 0)
        await store.shutdown()
    }
}
