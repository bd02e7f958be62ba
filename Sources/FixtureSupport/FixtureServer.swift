import CurlHTTP
import Foundation
import Synchronization

/// The bank fixture server the tests talk to over real HTTP.
///
/// When `UCACHE_FIXTURE_URL` is set (as in Docker compose) that server is used. Otherwise the first
/// caller starts `Fixtures/bank/server.py` on a free port; it lives as long as the test process (its
/// stdin is a pipe from this process, and it exits when the pipe closes).
public final class FixtureServer: Sendable {
    /// The server's root URL, without a trailing slash.
    public let baseURL: String
    /// A client for control requests, separate from the clients under test.
    public let controlClient: CurlHTTPClient

    private init(baseURL: String) throws {
        self.baseURL = baseURL
        self.controlClient = try CurlHTTPClient(configuration: .init(totalTimeout: .seconds(20)))
    }

    private static let instance = Mutex<Task<FixtureServer, any Error>?>(nil)

    /// The process-wide server, started on first use.
    public static func shared() async throws -> FixtureServer {
        let task = instance.withLock { instance in
            if let instance { return instance }
            let task = Task { try await start() }
            instance = task
            return task
        }
        return try await task.value
    }

    /// A fresh tenant: its own bank state, counters and faults, so tests can run in parallel.
    public static func tenant(_ label: String = "t") async throws -> FixtureTenant {
        let server = try await shared()
        let id = "\(label.filter { $0.isLetter || $0.isNumber }.prefix(24))-\(UUID().uuidString.prefix(13))"
        return FixtureTenant(server: server, id: id)
    }

    private static func start() async throws -> FixtureServer {
        if let url = ProcessInfo.processInfo.environment["UCACHE_FIXTURE_URL"], !url.isEmpty {
            return try FixtureServer(baseURL: url.hasSuffix("/") ? String(url.dropLast()) : url)
        }
        let url = try FixtureProcess.launch()
        return try FixtureServer(baseURL: url)
    }
}

/// Launches the Python fixture server as a child process.
enum FixtureProcess {
    /// Kept for the life of the process: closing the stdin pipe tells the server to exit.
    private static let running = Mutex<[Process]>([])
    private static let stdinPipes = Mutex<[Pipe]>([])

    static func launch() throws -> String {
        let root = packageRoot()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "python3", root.appendingPathComponent("Fixtures/bank/server.py").path,
            "--port", "0", "--exit-on-stdin-eof",
        ]
        let stdout = Pipe()
        let stdin = Pipe()
        process.standardOutput = stdout
        process.standardInput = stdin
        try process.run()
        running.withLock { $0.append(process) }
        stdinPipes.withLock { $0.append(stdin) }

        let handle = stdout.fileHandleForReading
        var buffer = Data()
        let deadline = Date().addingTimeInterval(30)
        while Date() < deadline {
            let chunk = handle.availableData
            if chunk.isEmpty { break }
            buffer.append(chunk)
            let text = String(decoding: buffer, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("UCACHE_FIXTURE_READY") }),
                let url = line.split(separator: " ").first(where: { $0.hasPrefix("url=") })?.dropFirst(4)
            {
                return String(url)
            }
        }
        process.terminate()
        throw FixtureError(
            "the fixture server did not report ready; output so far: \(String(decoding: buffer, as: UTF8.self))")
    }

    static func packageRoot() -> URL {
        // Sources/FixtureSupport/FixtureServer.swift -> package root. Integrations/ compiles this file through a
        // symbolic link (its IntegrationFixtures target), so the link is resolved first.
        URL(fileURLWithPath: #filePath).resolvingSymlinksInPath().deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent()
    }
}

/// An error of the test support itself (not of the code under test).
public struct FixtureError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
