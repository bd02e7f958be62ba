import FixtureSupport
import Foundation
import Testing
import UnifiedCache

@testable import RedisReplication

@Suite("Redis second level limits: value size, write queue, clear queue")
struct SecondLevelStoreLimitsTests {

    @Test("a value over maxValueBytes is not stored and is counted as dropped")
    func oversizedValue() async throws {
        var configuration = try secondLevelConfiguration(url: try await RedisTestServer.sharedURL(), label: "size")
        configuration.maxValueBytes = 64
        let store = try await connectedStore(configuration)
        store.write(
            Array(repeating: 1, count: 65), for: key("alice", "big"), generation: initialGeneration,
            timeToLive: .seconds(60),
            tags: [])
        try await writeAndSettle(
            store, Array(repeating: 2, count: 64), for: key("alice", "fits"), generation: initialGeneration)
        #expect(
            await store.read(key("alice", "big"), deadline: patientDeadline) == .miss(generation: initialGeneration))
        #expect(
            await store.read(key("alice", "fits"), deadline: patientDeadline)
                == .hit(Array(repeating: 2, count: 64), generation: initialGeneration))
        #expect(store.statistics().droppedWrites == 1 && store.statistics().writes == 1)
        await store.shutdown()
    }

    @Test("writes beyond writeQueueLimit while Redis does not answer are dropped and counted, never queued")
    func writeQueueOverflow() async throws {
        let redis = try await OwnRedis("queue") {
            $0.writeQueueLimit = 5
            $0.connection.commandTimeout = .seconds(30)  // the link stays up while paused
        }
        let (server, store) = (redis.server, redis.store)
        server.pause()
        for index in 0..<20 {
            store.write(
                [1], for: key("alice", "e\(index)"), generation: initialGeneration, timeToLive: .seconds(60), tags: [])
        }
        #expect(store.statistics().droppedWrites == 15)
        server.resume()
        try await waitUntil { store.statistics().writes == 5 }
        // Once answered, the queue has room again.
        try await writeAndSettle(store, [2], for: key("alice", "after"), generation: initialGeneration)
        #expect(store.statistics().writes == 6 && store.statistics().droppedWrites == 15)
        await redis.stop()
    }

    @Test("clears beyond clearQueueLimit during an outage collapse into one fleet-wide clear")
    func clearQueueCollapse() async throws {
        let redis = try await OwnRedis("collapse") {
            $0.clearQueueLimit = 2
            $0.clearDeadline = .milliseconds(50)
        }
        let (server, store) = (redis.server, redis.store)
        await server.kill()
        try await waitUntil { !store.statistics().isConnected }
        await store.clearNamespace(SecondLevelNamespace("alice"))
        await store.clearTags([SecondLevelTag("balances")], in: SecondLevelNamespace("bob"))
        await store.clearNamespace(SecondLevelNamespace("carol"))

        try await server.restart()
        try await waitUntil { store.statistics().clears == 1 }
        // One INCR of the epoch, no namespace generation: every namespace moved, carol's and dave's alike.
        for name in ["alice", "carol", "dave"] {
            #expect(
                await store.read(key(name, "a"), deadline: patientDeadline)
                    == .miss(generation: SecondLevelGeneration(token: "1.0")))
        }
        await redis.stop()
    }
}
