import FixtureSupport
import Foundation
import Testing
import UnifiedCache

@testable import RedisReplication

/// A second-level configuration for `url` under a key prefix no other test uses, with short backoff so outage tests
/// finish quickly (the command timeout stays 1 s: shorter ones can trip on a loaded machine).
func secondLevelConfiguration(url: String, label: String) throws -> RedisSecondLevelConfiguration {
    var configuration = RedisSecondLevelConfiguration(connection: try redisURLConfiguration(url))
    configuration.keyPrefix = "ucache-test:l2:\(label):\(UUID().uuidString.prefix(8)):"
    configuration.connection.commandTimeout = .milliseconds(TestTiming.milliseconds(1_000))
    configuration.connection.pingInterval = .milliseconds(250)
    configuration.connection.initialBackoff = .milliseconds(20)
    configuration.connection.maximumBackoff = .milliseconds(200)
    return configuration
}

/// A store on `url`, connected (reads fail fast until it is).
func connectedStore(_ configuration: RedisSecondLevelConfiguration) async throws -> RedisSecondLevelStore {
    let store = RedisSecondLevelStore(configuration: configuration)
    try await waitUntil { store.statistics().isConnected }
    return store
}

/// A generous read deadline for tests that are not about deadlines (a loaded machine must not turn hits into
/// timeouts).
let patientDeadline = Duration.milliseconds(TestTiming.milliseconds(10_000))

/// The generation every namespace has in a fleet that was never cleared.
let initialGeneration = SecondLevelGeneration(token: "0.0")

func key(_ namespace: String, _ name: String) -> SecondLevelKey {
    SecondLevelKey(namespace: SecondLevelNamespace(namespace), name: name)
}

/// The generation a read saw; fails the test when the read had no answer.
func generation(of read: SecondLevelRead) -> SecondLevelGeneration {
    switch read {
    case .hit(_, let generation), .miss(let generation): return generation
    case .unavailable(let failure):
        Issue.record("the read had no answer: \(failure)")
        return SecondLevelGeneration(token: "?")
    }
}

/// Writes and waits until Redis has answered the write (stored or dropped).
func writeAndSettle(
    _ store: RedisSecondLevelStore, _ value: [UInt8], for key: SecondLevelKey, generation: SecondLevelGeneration,
    timeToLive: Duration = .seconds(60), tags: [SecondLevelTag] = []
) async throws {
    let before = store.statistics()
    store.write(value, for: key, generation: generation, timeToLive: timeToLive, tags: tags)
    try await waitUntil {
        let now = store.statistics()
        return now.writes + now.droppedWrites > before.writes + before.droppedWrites
    }
}

/// Runs `body` while Redis is paused or down, and tells whether `body` returned by itself. A safety net calls
/// `recover` (resume, restart) after `patience`, so a store that waits for Redis instead of keeping its deadline
/// fails the test rather than hanging it. This checks the deadline by cause (the call returned while Redis could not
/// have answered), not by wall-clock speed, which a loaded machine cannot promise.
func whileRedisIsStuck<T: Sendable>(
    patience: Duration = .milliseconds(TestTiming.milliseconds(20_000)), recover: @escaping @Sendable () async -> Void,
    _ body: () async -> T
) async -> (value: T, returnedByItself: Bool) {
    let net = SafetyNet()
    let task = Task {
        try await Task.sleep(for: patience)
        await net.fire(recover)
    }
    let value = await body()
    task.cancel()
    return (value, await !net.fired)
}

/// Whether the safety net of ``whileRedisIsStuck(patience:recover:_:)`` had to step in.
private actor SafetyNet {
    private(set) var fired = false

    func fire(_ recover: @Sendable () async -> Void) async {
        fired = true
        await recover()
    }
}

/// A plain blocking connection for looking at what the store left in Redis (PTTL, INFO), as an operator would.
final class RawRedis {
    private let connection: RedisConnection

    init(_ configuration: RedisSecondLevelConfiguration) throws {
        connection = try RedisConnection(configuration.connection)
    }

    func command(_ arguments: String...) throws -> RedisReply {
        try connection.command(arguments.map { Array($0.utf8) })
    }

    func integer(_ arguments: String...) throws -> Int64? {
        if case .integer(let value) = try connection.command(arguments.map { Array($0.utf8) }) { return value }
        return nil
    }

    /// `calls` of one command in `INFO commandstats` (0 when never called).
    func calls(of name: String) throws -> Int {
        let info = try command("INFO", "commandstats").text ?? ""
        guard let line = info.split(whereSeparator: \.isNewline).first(where: { $0.hasPrefix("cmdstat_\(name):") }),
            let field = line.split(separator: ",").first?.split(separator: "=").last
        else { return 0 }
        return Int(field) ?? 0
    }
}

/// A redis-server of the test's own (to kill, pause, restart or count commands on) and a connected store on it.
struct OwnRedis {
    let server: RedisTestServer
    let configuration: RedisSecondLevelConfiguration
    let store: RedisSecondLevelStore

    init(
        _ label: String, password: String? = nil,
        adjust: (inout RedisSecondLevelConfiguration) -> Void = { _ in }
    ) async throws {
        server = try await RedisTestServer.start(password: password)
        var configuration = try secondLevelConfiguration(url: server.url, label: label)
        adjust(&configuration)
        self.configuration = configuration
        store = try await connectedStore(configuration)
    }

    /// Shuts the store down and kills the server (resumed first, in case the test paused it).
    func stop() async {
        await store.shutdown()
        server.resume()
        await server.kill()
    }
}
