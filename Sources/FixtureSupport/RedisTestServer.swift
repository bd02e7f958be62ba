import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A real `redis-server` for the replication tests, started like the fixture server.
///
/// ``sharedURL()`` is the server most tests use (each test on its own channel): `UCACHE_REDIS_URL` when set (as in
/// Docker compose, with a password), otherwise one `redis-server` on a free loopback port for the test process,
/// with a random password that its URL carries. Tests that kill,
/// pause or restart Redis ``start(password:)`` a server of their own. Every server started here lives at most as long
/// as the test process: it runs under a shell whose stdin is a pipe from this process and kills it when the pipe
/// closes.
public final class RedisTestServer: Sendable {
    public let host = "127.0.0.1"
    public let port: Int
    /// The AUTH password the server requires (nil only for a server started `unauthenticated`).
    public let password: String?
    /// An ACL user (name and password) the server knows besides the default user, if any.
    public let aclUser: (name: String, password: String)?
    /// The server's TLS settings when it speaks only TLS (``start(password:aclUser:unauthenticated:tls:)``).
    public let tls: TLSSettings?
    private let running = Mutex<(pid: pid_t, stdin: ChildProcess?)>((0, nil))

    private init(port: Int, password: String?, aclUser: (name: String, password: String)?, tls: TLSSettings?) {
        self.port = port
        self.password = password
        self.aclUser = aclUser
        self.tls = tls
    }

    /// A TLS-only server (`--port 0 --tls-port`): its certificate and key, the CA it checks client certificates
    /// against, and whether it requires one (mutual TLS).
    public struct TLSSettings: Sendable {
        public var certificateFile: String
        public var keyFile: String
        public var caFile: String
        public var requiresClientCertificate: Bool

        public init(certificateFile: String, keyFile: String, caFile: String, requiresClientCertificate: Bool = false) {
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.caFile = caFile
            self.requiresClientCertificate = requiresClientCertificate
        }
    }

    /// `redis://[:password@]127.0.0.1:port`, or `rediss://` for a TLS server.
    public var url: String {
        "\(tls == nil ? "redis" : "rediss")://\(password.map { ":\($0)@" } ?? "")\(host):\(port)"
    }

    private static let sharedURL = Mutex<Task<String, any Error>?>(nil)
    private static let sharedServer = Mutex<RedisTestServer?>(nil)

    /// The URL of the process-wide Redis: `UCACHE_REDIS_URL`, or a server started on first use.
    public static func sharedURL() async throws -> String {
        let task = sharedURL.withLock { task in
            if let task { return task }
            let started = Task { () throws -> String in
                if let url = ProcessInfo.processInfo.environment["UCACHE_REDIS_URL"], !url.isEmpty { return url }
                let server = try await start()
                sharedServer.withLock { $0 = server }  // lives as long as the process: its pipe keeps it running
                return server.url
            }
            task = started
            return started
        }
        return try await task.value
    }

    /// Starts a server of the caller's own on a free port; it can be killed, paused and restarted. The default
    /// user needs `password`, or a random one when it is nil (``url`` carries it), as a fleet's Redis must; only
    /// `unauthenticated` starts one without AUTH. With `aclUser`, that user also exists, allowed every command. With
    /// `tls`, the server speaks only TLS on its port.
    ///
    /// Waiting for the server to listen happens on a thread of its own, never on one of the few cooperative threads
    /// every test of the process shares (blocking those stalls every other test).
    public static func start(
        password: String? = nil, aclUser: (name: String, password: String)? = nil, unauthenticated: Bool = false,
        tls: TLSSettings? = nil
    ) async throws -> RedisTestServer {
        let effective = unauthenticated ? nil : password ?? "ucache-test-\(UUID().uuidString.prefix(12))"
        let server = RedisTestServer(port: try UnusedPort.find(), password: effective, aclUser: aclUser, tls: tls)
        try await offThePool { try server.launch() }
        return server
    }

    /// Kills the server at once (SIGKILL) and returns once its port refuses connections: clients see their
    /// connections close.
    public func kill() async {
        terminate()
        try? await offThePool { self.waitUntilRefused() }
    }

    /// Sends SIGKILL without waiting for the port to close (for `defer` blocks and cleanup).
    public func terminate() {
        let pid = running.withLock { $0.pid }
        if pid > 0 { send(SIGKILL, to: pid) }
    }

    /// Freezes the server (SIGSTOP): connections stay open and nothing answers.
    public func pause() {
        let pid = running.withLock { $0.pid }
        if pid > 0 { send(SIGSTOP, to: pid) }
    }

    /// Thaws a paused server (SIGCONT).
    public func resume() {
        let pid = running.withLock { $0.pid }
        if pid > 0 { send(SIGCONT, to: pid) }
    }

    /// Starts the server again on the same port after ``kill()``.
    public func restart() async throws {
        try await offThePool { try self.launch() }
    }

    private func launch() throws {
        var command = "redis-server --bind 127.0.0.1 --save '' --appendonly no --daemonize no"
        if let tls {
            command += " --port 0 --tls-port \(port) --tls-cert-file '\(tls.certificateFile)'"
            command += " --tls-key-file '\(tls.keyFile)' --tls-ca-cert-file '\(tls.caFile)'"
            command += " --tls-auth-clients \(tls.requiresClientCertificate ? "yes" : "no")"
        } else {
            command += " --port \(port)"
        }
        if let password { command += " --requirepass '\(password)'" }
        if let aclUser { command += " --user \(aclUser.name) on '>\(aclUser.password)' '~*' '&*' '+@all'" }
        let (pid, shell) = try launchRedis(command, listeningOn: port)
        running.withLock { $0 = (pid, shell) }
    }

    private func waitUntilRefused() {
        let deadline = Date().addingTimeInterval(10)
        // Polling until the stopped server's port refuses: the process's exit, not time passing in a test.
        while Date() < deadline, Self.accepts(port: port) { usleep(2_000) }
    }

    /// Whether something accepts TCP connections on the loopback port.
    static func accepts(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                connect(fd, generic, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }
}

/// `kill(2)`, under a name the servers' own `kill()` does not shadow.
func send(_ signal: Int32, to pid: pid_t) {
    _ = kill(pid, signal)
}

/// Starts a redis-server command line (a simple command, or one in parentheses that `exec`s it, so `$!` is its pid)
/// under a shell that reports its pid and kills it when this process closes the
/// pipe (or exits), then waits until it listens on `port` (at most 10 s).
func launchRedis(_ command: String, listeningOn port: Int) throws -> (pid: pid_t, shell: ChildProcess) {
    let shell = try ChildProcess.spawn(
        "/bin/sh", ["-c", "\(command) >/dev/null 2>&1 & echo \"PID $!\"; cat >/dev/null; kill -9 $! 2>/dev/null"],
        standardInput: true, standardOutput: true)
    let line = String(decoding: shell.output?.availableData ?? Data(), as: UTF8.self)
    guard
        let pid = line.split(separator: " ").last.flatMap({ pid_t($0.trimmingCharacters(in: .whitespacesAndNewlines)) })
    else { throw FixtureError("redis-server did not start (is it installed? scripts/ensure-deps.sh)") }
    let deadline = Date().addingTimeInterval(10)
    while Date() < deadline {
        if RedisTestServer.accepts(port: port) { return (pid, shell) }
        usleep(5_000)  // waiting for redis-server to listen, not for time to pass in a test
    }
    throw FixtureError("redis-server did not listen on port \(port) within 10 s")
}
