import FixtureSupport
import Foundation
import Synchronization
import Testing
import UnifiedCache

@Suite("Replicas in two processes")
struct TwoProcessTests {
    /// `ucache-replica` as a child process, spoken to line by line; each exchange blocks a thread of its own, never
    /// the cooperative pool the other tests run on.
    final class ReplicaProcess: Sendable {
        private let process: ChildProcess
        /// What was read past the last answer line; one exchange at a time holds it.
        private let buffer = Mutex(Data())

        init(upstream: String, redisURL: String, channel: String) throws {
            let binary = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
                .appendingPathComponent("ucache-replica")
            guard FileManager.default.isExecutableFile(atPath: binary.path) else {
                throw FixtureError("build ucache-replica first (swift build --build-tests builds it)")
            }
            var environment = ProcessInfo.processInfo.environment
            environment["UCACHE_UPSTREAM_URL"] = upstream
            environment["UCACHE_REDIS_URL"] = redisURL
            environment["UCACHE_REDIS_CHANNEL"] = channel
            environment["UCACHE_REPLICATION_SECRET"] =
                "hex:" + ReplicaHarness.secret.utf8.map { ($0 < 16 ? "0" : "") + String($0, radix: 16) }.joined()
            process = try ChildProcess.spawn(
                binary.path, [], environment: environment, standardInput: true, standardOutput: true)
        }

        /// Sends one command and returns its answer line.
        func ask(_ command: String) async throws -> String {
            try await offThePool { try self.askBlocking(command) }
        }

        private func askBlocking(_ command: String) throws -> String {
            try buffer.withLock { buffer in
                process.input?.write(Data("\(command)\n".utf8))
                while true {
                    if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                        let line = String(decoding: buffer[..<newline], as: UTF8.self)
                        buffer.removeSubrange(...newline)
                        return line
                    }
                    let chunk = process.output?.availableData ?? Data()
                    guard !chunk.isEmpty else { throw FixtureError("ucache-replica exited") }
                    buffer.append(chunk)
                }
            }
        }

        func quit() async {
            _ = try? await ask("quit")
            try? process.input?.close()
            _ = try? await offThePool { self.process.wait() }
        }
    }

    @Test("a logout in this process empties the other process's copy, and a clear there reaches this one")
    func twoProcesses() async throws {
        let tenant = try await FixtureServer.tenant("twoprocess")
        let url = try await RedisTestServer.sharedURL()
        let channel = uniqueChannel("twoprocess")
        let peer = try ReplicaProcess(upstream: tenant.baseURL, redisURL: url, channel: channel)
        do {
            let hub = try ReplicaHarness.hub(tenant: tenant, redisURL: url, channel: channel, settings: SettingsStore())
            try await ReplicaHarness.waitUntilReady(hub)
            #expect(try await peer.ask("ready") == "ready")

            let fetch = "fetch session-alice token-alice /api/accounts/101/balance balances.101"
            #expect(try await peer.ask(fetch) == "network")
            #expect(try await peer.ask(fetch) == "cache")
            _ = hub.session(
                id: "session-alice", principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice"))
            await hub.endSession(id: "session-alice")
            try await waitUntil { try await peer.ask("applied") == "1" }
            #expect(try await peer.ask(fetch) == "network")

            let balance = CachedGET(path: "/api/accounts/101/balance", key: "balances.101")
            let again = hub.session(
                id: "session-alice", principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice"))
            _ = try await again.rest.perform(with: balance).get()
            #expect(try await again.source(of: balance) == .cache)
            #expect(try await peer.ask("clearAll session-alice") == "ok")
            try await waitUntil { (hub.replicationStatistics?.applied ?? 0) == 1 }
            #expect(try await again.source(of: balance) == .network)
            await hub.shutdown()
        } catch {
            await peer.quit()
            throw error
        }
        await peer.quit()
    }
}
