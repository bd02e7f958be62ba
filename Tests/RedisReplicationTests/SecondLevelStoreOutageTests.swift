import FixtureSupport
import Foundation
import Testing
import UnifiedCache

@testable import RedisReplication

@Suite("Redis second level when limits are hit or Redis is slow, paused, killed or guarded")
struct SecondLevelStoreOutageTests {
    private let zero = SecondLevelGeneration(token: "0.0")
    private let clock = ContinuousClock()

    @Test("a value over maxValueBytes is not stored and is counted as dropped")
    func oversizedValue() async throws {
        var configuration = try secondLevelConfiguration(url: try await RedisTestServer.sharedURL(), label: "size")
        configuration.maxValueBytes = 64
        let store = try await connectedStore(configuration)
        store.write(
            Array(repeating: 1, count: 65), for: key("alice", "big"), generation: zero, timeToLive: .seconds(60),
            tags: [])
        try await writeAndSettle(store, Array(repeating: 2, count: 64), for: key("alice", "fits"), generation: zero)
        #expect(await store.read(key("alice", "big"), deadline: patientDeadline) == .miss(generation: zero))
        #expect(
            await store.read(key("alice", "fits"), deadline: patientDeadline)
                == .hit(Array(repeating: 2, count: 64), generation: zero))
        #expect(store.statistics().droppedWrites == 1 && store.statistics().writes == 1)
        await store.shutdown()
    }

    @Test("writes beyond writeQueueLimit while Redis does not answer are dropped and counted, never queued")
    func writeQueueOverflow() async throws {
        let server = try RedisTestServer.start()
        var configuration = try secondLevelConfiguration(url: server.url, label: "queue")
        configuration.writeQueueLimit = 5
        configuration.connection.commandTimeout = .seconds(30)  // the link stays up while paused
        let store = try await connectedStore(configuration)
        server.pause()
        for index in 0..<20 {
            store.write([1], for: key("alice", "e\(index)"), generation: zero, timeToLive: .seconds(60), tags: [])
        }
        #expect(store.statistics().droppedWrites == 15)
        server.resume()
        try await waitUntil { store.statistics().writes == 5 }
        // Once answered, the queue has room again.
        try await writeAndSettle(store, [2], for: key("alice", "after"), generation: zero)
        #expect(store.statistics().writes == 6 && store.statistics().droppedWrites == 15)
        await store.shutdown()
        server.kill()
    }

    @Test("Redis paused mid-read: the read answers .timeout by its deadline; the store recovers after the resume")
    func pausedMidRead() async throws {
        let server = try RedisTestServer.start()
        let store = try await connectedStore(secondLevelConfiguration(url: server.url, label: "pause"))
        server.pause()
        let started = clock.now
        let read = await store.read(key("alice", "a"), deadline: .milliseconds(50))
        let elapsed = clock.now - started
        #expect(read == .unavailable(.timeout))
        #expect(elapsed >= .milliseconds(50))
        #expect(elapsed < .milliseconds(50 + TestTiming.milliseconds(150)), "took \(elapsed)")
        #expect(store.statistics().timeouts == 1)

        // Past the command timeout the connection is dropped; reads then fail at once instead of waiting.
        try await waitUntil { !store.statistics().isConnected }
        #expect(await store.read(key("alice", "a"), deadline: .seconds(5)) == .unavailable(.error))

        server.resume()
        try await waitUntil { store.statistics().isConnected }
        #expect(await store.read(key("alice", "a"), deadline: patientDeadline) == .miss(generation: zero))
        await store.shutdown()
        server.kill()
    }

    @Test("a reply that comes after its read's deadline is discarded, never given to a later read")
    func lateReplyDiscarded() async throws {
        let server = try RedisTestServer.start()
        var configuration = try secondLevelConfiguration(url: server.url, label: "late")
        configuration.connection.commandTimeout = .seconds(30)  // the connection survives the pause
        let store = try await connectedStore(configuration)
        try await writeAndSettle(store, [1], for: key("alice", "a"), generation: zero)
        try await writeAndSettle(store, [2], for: key("alice", "b"), generation: zero)
        server.pause()
        #expect(await store.read(key("alice", "a"), deadline: .milliseconds(30)) == .unavailable(.timeout))
        server.resume()
        #expect(await store.read(key("alice", "b"), deadline: patientDeadline) == .hit([2], generation: zero))
        #expect(store.statistics().isConnected && store.statistics().timeouts == 1)
        await store.shutdown()
        server.kill()
    }

    @Test("a clear while Redis is paused returns by its deadline and is applied once Redis answers again")
    func clearWhilePaused() async throws {
        let server = try RedisTestServer.start()
        var configuration = try secondLevelConfiguration(url: server.url, label: "pauseclear")
        configuration.clearDeadline = .milliseconds(100)
        let store = try await connectedStore(configuration)
        try await writeAndSettle(store, [1], for: key("alice", "a"), generation: zero)
        server.pause()
        let started = clock.now
        await store.clearNamespace(SecondLevelNamespace("alice"))
        #expect(clock.now - started < .milliseconds(100 + TestTiming.milliseconds(400)))
        // Past the command timeout the connection is dropped; the clear is sent again on the next one.
        try await waitUntil { !store.statistics().isConnected }
        server.resume()
        try await waitUntil { store.statistics().clears >= 1 }
        let read = await store.read(key("alice", "a"), deadline: patientDeadline)
        // Redis may also have run the copy sent before the pause: a clear applied twice is harmless.
        #expect(
            read == .miss(generation: SecondLevelGeneration(token: "0.1"))
                || read == .miss(generation: SecondLevelGeneration(token: "0.2")))
        await store.shutdown()
        server.kill()
    }

    @Test("clears beyond clearQueueLimit during an outage collapse into one fleet-wide clear")
    func clearQueueCollapse() async throws {
        let server = try RedisTestServer.start()
        var configuration = try secondLevelConfiguration(url: server.url, label: "collapse")
        configuration.clearQueueLimit = 2
        configuration.clearDeadline = .milliseconds(50)
        let store = try await connectedStore(configuration)
        server.kill()
        try await waitUntil { !store.statistics().isConnected }
        await store.clearNamespace(SecondLevelNamespace("alice"))
        await store.clearTags([SecondLevelTag("balances")], in: SecondLevelNamespace("bob"))
        await store.clearNamespace(SecondLevelNamespace("carol"))

        try server.restart()
        try await waitUntil { store.statistics().clears == 1 }
        // One INCR of the epoch, no namespace generation: every namespace moved, carol's and dave's alike.
        for name in ["alice", "carol", "dave"] {
            #expect(
                await store.read(key(name, "a"), deadline: patientDeadline)
                    == .miss(generation: SecondLevelGeneration(token: "1.0")))
        }
        await store.shutdown()
        server.kill()
    }

    @Test("Redis killed: reads fail at once with .error; after a restart the same store reads again")
    func killedAndRestarted() async throws {
        let server = try RedisTestServer.start()
        let store = try await connectedStore(secondLevelConfiguration(url: server.url, label: "kill"))
        server.kill()
        try await waitUntil { !store.statistics().isConnected }
        let started = clock.now
        #expect(await store.read(key("alice", "a"), deadline: .seconds(5)) == .unavailable(.error))
        #expect(clock.now - started < .milliseconds(TestTiming.milliseconds(500)))
        store.write([1], for: key("alice", "a"), generation: zero, timeToLive: .seconds(60), tags: [])
        #expect(store.statistics().droppedWrites == 1 && store.statistics().errors == 1)

        try server.restart()
        try await waitUntil { store.statistics().isConnected }
        try await writeAndSettle(store, [7], for: key("alice", "a"), generation: zero)
        #expect(await store.read(key("alice", "a"), deadline: patientDeadline) == .hit([7], generation: zero))
        await store.shutdown()
        server.kill()
    }

    @Test("a clear issued while Redis is down returns by its deadline and is applied once Redis is back")
    func clearDuringOutage() async throws {
        let server = try RedisTestServer.start()
        var configuration = try secondLevelConfiguration(url: server.url, label: "outageclear")
        configuration.clearDeadline = .milliseconds(100)
        let store = try await connectedStore(configuration)
        server.kill()
        try await waitUntil { !store.statistics().isConnected }

        let started = clock.now
        await store.clearNamespace(SecondLevelNamespace("alice"))
        #expect(clock.now - started < .milliseconds(100 + TestTiming.milliseconds(400)))
        #expect(store.statistics().clears == 0)

        try server.restart()
        try await waitUntil { store.statistics().clears == 1 }
        // The restarted Redis is empty: the generation it holds now is the clear's own INCR.
        #expect(
            await store.read(key("alice", "a"), deadline: patientDeadline)
                == .miss(generation: SecondLevelGeneration(token: "0.1")))
        await store.shutdown()
        server.kill()
    }

    @Test("with the password the store connects; with a wrong one it never does and its reads fail fast")
    func authentication() async throws {
        let server = try RedisTestServer.start(password: "l2-password-1")
        let store = try await connectedStore(secondLevelConfiguration(url: server.url, label: "auth"))
        #expect(await store.read(key("alice", "a"), deadline: patientDeadline) == .miss(generation: zero))
        await store.shutdown()

        var wrong = try secondLevelConfiguration(url: server.url, label: "auth")
        wrong.connection.password = "not-the-password"
        let rejected = RedisSecondLevelStore(configuration: wrong)
        let raw = try RawRedis(try secondLevelConfiguration(url: server.url, label: "auth"))
        // The raw connection's AUTH, then at least two refused attempts of the store.
        try await waitUntil { try raw.calls(of: "auth") >= 3 }
        #expect(!rejected.statistics().isConnected)
        #expect(await rejected.read(key("alice", "a"), deadline: .seconds(5)) == .unavailable(.error))
        #expect(!wrong.description.contains("not-the-password"))
        await rejected.shutdown()
        server.kill()
    }

    @Test("shutdown answers pending reads with .stopped, and every read after it too")
    func shutdownResumesReads() async throws {
        let server = try RedisTestServer.start()
        var configuration = try secondLevelConfiguration(url: server.url, label: "shutdown")
        configuration.connection.commandTimeout = .seconds(30)
        let store = try await connectedStore(configuration)
        server.pause()
        let pending = Task { await store.read(key("alice", "a"), deadline: .seconds(30)) }
        // Lets the read reach the paused server (were it still queued, or not yet submitted, the answer is the same).
        try await Task.sleep(for: .milliseconds(20))
        await store.shutdown()
        #expect(await pending.value == .unavailable(.stopped))
        #expect(await store.read(key("alice", "b"), deadline: .seconds(1)) == .unavailable(.stopped))
        server.resume()
        server.kill()
    }

    @Test("a store dropped without shutdown closes its connection and ends its thread")
    func droppedStore() async throws {
        let server = try RedisTestServer.start()
        let configuration = try secondLevelConfiguration(url: server.url, label: "drop")
        let raw = try RawRedis(configuration)
        var store: RedisSecondLevelStore? = try await connectedStore(configuration)
        #expect(try clientCount(raw) == 2)
        _ = await store?.read(key("alice", "a"), deadline: patientDeadline)
        store = nil
        try await waitUntil { try clientCount(raw) == 1 }
        server.kill()
    }

    private func clientCount(_ raw: RawRedis) throws -> Int {
        let info = try raw.command("INFO", "clients").text ?? ""
        let line = info.split(whereSeparator: \.isNewline).first { $0.hasPrefix("connected_clients:") }
        return line.flatMap { Int($0.split(separator: ":").last ?? "") } ?? -1
    }
}
