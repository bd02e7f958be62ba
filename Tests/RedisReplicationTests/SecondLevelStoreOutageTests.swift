import FixtureSupport
import Foundation
import Testing
import UnifiedCache

@testable import RedisReplication

@Suite("Redis second level when Redis is paused or killed: deadlines kept, clears applied after")
struct SecondLevelStoreOutageTests {
    private let clock = ContinuousClock()

    @Test("Redis paused mid-read: the read answers .timeout by its deadline; the store recovers after the resume")
    func pausedMidRead() async throws {
        let redis = try await OwnRedis("pause")
        let (server, store) = (redis.server, redis.store)
        server.pause()
        let started = clock.now
        let (read, returnedByItself) = await whileRedisIsStuck(recover: server.resume) {
            await store.read(key("alice", "a"), deadline: .milliseconds(50))
        }
        #expect(read == .unavailable(.timeout))
        #expect(returnedByItself, "the read waited for Redis instead of its deadline")
        #expect(clock.now - started >= .milliseconds(50))
        #expect(store.statistics().timeouts == 1)

        // Past the command timeout the connection is dropped; reads then fail at once instead of waiting.
        try await waitUntil { !store.statistics().isConnected }
        #expect(await store.read(key("alice", "a"), deadline: .seconds(5)) == .unavailable(.error))

        server.resume()
        try await waitUntil { store.statistics().isConnected }
        #expect(await store.read(key("alice", "a"), deadline: patientDeadline) == .miss(generation: initialGeneration))
        await redis.stop()
    }

    @Test("a reply that comes after its read's deadline is discarded, never given to a later read")
    func lateReplyDiscarded() async throws {
        let redis = try await OwnRedis("late") {
            $0.connection.commandTimeout = .seconds(30)  // the connection survives the pause
        }
        let (server, store) = (redis.server, redis.store)
        try await writeAndSettle(store, [1], for: key("alice", "a"), generation: initialGeneration)
        try await writeAndSettle(store, [2], for: key("alice", "b"), generation: initialGeneration)
        server.pause()
        #expect(await store.read(key("alice", "a"), deadline: .milliseconds(30)) == .unavailable(.timeout))
        server.resume()
        #expect(
            await store.read(key("alice", "b"), deadline: patientDeadline) == .hit([2], generation: initialGeneration))
        #expect(store.statistics().isConnected && store.statistics().timeouts == 1)
        await redis.stop()
    }

    @Test("a clear while Redis is paused returns by its deadline and is applied once Redis answers again")
    func clearWhilePaused() async throws {
        let redis = try await OwnRedis("pauseclear") {
            $0.clearDeadline = .milliseconds(100)
        }
        let (server, store) = (redis.server, redis.store)
        try await writeAndSettle(store, [1], for: key("alice", "a"), generation: initialGeneration)
        server.pause()
        let (_, returnedByItself) = await whileRedisIsStuck(recover: server.resume) {
            await store.clearNamespace(SecondLevelNamespace("alice"))
        }
        #expect(returnedByItself, "the clear waited for Redis instead of its deadline")
        // Past the command timeout the connection is dropped; the clear is sent again on the next one.
        try await waitUntil { !store.statistics().isConnected }
        server.resume()
        try await waitUntil { store.statistics().clears >= 1 }
        let read = await store.read(key("alice", "a"), deadline: patientDeadline)
        // Redis may also have run the copy sent before the pause: a clear applied twice is harmless.
        #expect(
            read == .miss(generation: SecondLevelGeneration(token: "0.1"))
                || read == .miss(generation: SecondLevelGeneration(token: "0.2")))
        await redis.stop()
    }

    @Test("Redis killed: reads fail at once with .error; after a restart the same store reads again")
    func killedAndRestarted() async throws {
        let redis = try await OwnRedis("kill")
        let (server, store) = (redis.server, redis.store)
        await server.kill()
        try await waitUntil { !store.statistics().isConnected }
        let started = clock.now
        #expect(await store.read(key("alice", "a"), deadline: .seconds(60)) == .unavailable(.error))
        // Failing at once, not at the deadline (a margin no loaded machine comes near).
        #expect(clock.now - started < .seconds(30))
        store.write([1], for: key("alice", "a"), generation: initialGeneration, timeToLive: .seconds(60), tags: [])
        #expect(store.statistics().droppedWrites == 1 && store.statistics().errors == 1)

        try await server.restart()
        try await waitUntil { store.statistics().isConnected }
        try await writeAndSettle(store, [7], for: key("alice", "a"), generation: initialGeneration)
        #expect(
            await store.read(key("alice", "a"), deadline: patientDeadline) == .hit([7], generation: initialGeneration))
        await redis.stop()
    }

    @Test("a clear issued while Redis is down returns by its deadline and is applied once Redis is back")
    func clearDuringOutage() async throws {
        let redis = try await OwnRedis("outageclear") {
            $0.clearDeadline = .milliseconds(100)
        }
        let (server, store) = (redis.server, redis.store)
        await server.kill()
        try await waitUntil { !store.statistics().isConnected }

        let restart: @Sendable () async -> Void = { try? await server.restart() }
        let (_, returnedByItself) = await whileRedisIsStuck(recover: restart) {
            await store.clearNamespace(SecondLevelNamespace("alice"))
        }
        #expect(returnedByItself, "the clear waited for Redis instead of its deadline")
        #expect(store.statistics().clears == 0)

        try await server.restart()
        try await waitUntil { store.statistics().clears == 1 }
        // The restarted Redis is empty: the generation it holds now is the clear's own INCR.
        #expect(
            await store.read(key("alice", "a"), deadline: patientDeadline)
                == .miss(generation: SecondLevelGeneration(token: "0.1")))
        await redis.stop()
    }

    @Test("after Redis lost the scripts (SCRIPT FLUSH) reads still answer; the store reconnects and writes work")
    func scriptsReloaded() async throws {
        let redis = try await OwnRedis("noscript")
        let (store, entry) = (redis.store, key("alice", "a"))
        try await writeAndSettle(store, [5], for: entry, generation: initialGeneration)
        _ = try RawRedis(redis.configuration).command("SCRIPT", "FLUSH")
        // One server's read runs no script: it still answers.
        #expect(await store.read(entry, deadline: patientDeadline) == .hit([5], generation: initialGeneration))
        // The next write does: Redis answers NOSCRIPT, the write is dropped and the store makes its connection again.
        let dropped = store.statistics().droppedWrites
        try await writeAndSettle(store, [6], for: entry, generation: initialGeneration)
        #expect(store.statistics().droppedWrites == dropped + 1)
        try await waitUntil { store.lastError?.code == .protocolError }
        try await waitUntil {
            let before = store.statistics().writes
            try await writeAndSettle(store, [7], for: entry, generation: initialGeneration)
            return store.statistics().writes == before + 1
        }
        #expect(await store.read(entry, deadline: patientDeadline) == .hit([7], generation: initialGeneration))
        await redis.stop()
    }
}
