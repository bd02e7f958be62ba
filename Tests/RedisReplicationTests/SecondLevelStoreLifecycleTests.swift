import FixtureSupport
import Foundation
import Testing
import UnifiedCache

@testable import RedisReplication

@Suite("Redis second level lifecycle: AUTH, shutdown, a store dropped without shutdown")
struct SecondLevelStoreLifecycleTests {

    @Test("with the password the store connects; with a wrong one it never does and its reads fail fast")
    func authentication() async throws {
        let server = try await RedisTestServer.start(password: "l2-password-1")
        let store = try await connectedStore(secondLevelConfiguration(url: server.url, label: "auth"))
        #expect(await store.read(key("alice", "a"), deadline: patientDeadline) == .miss(generation: initialGeneration))
        await store.shutdown()

        var wrong = try secondLevelConfiguration(url: server.url, label: "auth")
        wrong.connection.password = "not-the-password"
        let rejected = RedisSecondLevelStore(configuration: wrong)
        try await waitUntil { rejected.lastError != nil }
        let error = try #require(rejected.lastError)
        #expect(error.code == .authenticationFailed)
        #expect(!rejected.statistics().isConnected)
        #expect(await rejected.read(key("alice", "a"), deadline: .seconds(5)) == .unavailable(.error))
        #expect(!wrong.description.contains("not-the-password"))
        #expect(!error.description.contains("not-the-password"))
        await rejected.shutdown()
        await server.kill()
    }

    @Test("shutdown answers pending reads with .stopped, and every read after it too")
    func shutdownResumesReads() async throws {
        let redis = try await OwnRedis("shutdown") {
            $0.connection.commandTimeout = .seconds(30)
        }
        let (server, store) = (redis.server, redis.store)
        server.pause()
        let pending = Task { await store.read(key("alice", "a"), deadline: .seconds(30)) }
        // Whether the read has reached the paused server, is still queued or not yet submitted, the answer is the
        // same: shutdown resumes it with .stopped, and a read submitted after the stop is refused with .stopped.
        await store.shutdown()
        #expect(await pending.value == .unavailable(.stopped))
        #expect(await store.read(key("alice", "b"), deadline: .seconds(1)) == .unavailable(.stopped))
        server.resume()
        await server.kill()
    }

    @Test("a store dropped without shutdown closes its connection and ends its thread")
    func droppedStore() async throws {
        let server = try await RedisTestServer.start()
        let configuration = try secondLevelConfiguration(url: server.url, label: "drop")
        let raw = try RawRedis(configuration)
        var store: RedisSecondLevelStore? = try await connectedStore(configuration)
        #expect(try clientCount(raw) == 2)
        _ = await store?.read(key("alice", "a"), deadline: patientDeadline)
        store = nil
        try await waitUntil { try clientCount(raw) == 1 }
        await server.kill()
    }

    private func clientCount(_ raw: RawRedis) throws -> Int {
        let info = try raw.command("INFO", "clients").text ?? ""
        let line = info.split(whereSeparator: \.isNewline).first { $0.hasPrefix("connected_clients:") }
        return line.flatMap { Int($0.split(separator: ":").last ?? "") } ?? -1
    }
}
