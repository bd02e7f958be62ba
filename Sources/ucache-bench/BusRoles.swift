import CacheCore
import Foundation
import RedisReplication
import Synchronization
import UnifiedCache

#if canImport(Glibc)
    import Glibc
#endif

/// The child processes of `ucache-bench bus`: a subscriber process holding several hubs, and the publisher. They
/// speak to the driver in lines: a child prints `READY` once subscribed, waits for `GO` (and a subscriber for `STOP`)
/// on its standard input, and ends with one `RESULT <json>` line.
enum BusRoles {
    static let secret = Array("bench-fleet-secret-0123456789-0123".utf8)
    static let sessionID = "bus-user"
    /// Clears are stamped with the wall clock in this reason: `bus-t<nanoseconds since 1970>`.
    static let stampPrefix = "bus-t"

    struct SubscriberResult: Codable {
        var hubs: Int
        /// User plus system CPU of the whole process between GO and STOP.
        var cpuSeconds: Double
        var wallSeconds: Double
        /// Clears applied, or found to concern no session held here.
        var applied: Int
        var delays: [UInt64]
    }

    struct PublisherResult: Codable {
        var sent: Int
        /// Sealed messages the clears left in (fewer than `sent` with batching).
        var messages: Int
        var seconds: Double
    }

    /// A hub of the bus, batching as `--batch` (clears per message, 1 = off) and `--window-us` say.
    static func hub(observer: (any CacheEventObserver)?, options: BenchOptions) throws -> CacheHub {
        guard var redis = try RedisReplicationConfiguration(environment: ProcessInfo.processInfo.environment) else {
            throw BenchError("a bus child needs UCACHE_REDIS_URL")
        }
        redis.outboxLimit = 1_000_000
        let upstream = "http://127.0.0.1:9/"
        return try CacheHub(
            configuration: .init(
                restBaseURL: upstream, graphQLEndpoint: upstream + "graphql",
                replication: ReplicationConfiguration(
                    transport: RedisReplicationTransport(configuration: redis), secret: try ReplicationSecret(secret),
                    maximumClearsPerMessage: options.int("batch", default: 1),
                    batchingWindow: .microseconds(options.int("window-us", default: 0)))
            ).withBankingPresets(),
            settings: SettingsStore(settings: .banking), observer: observer)
    }

    static func session(on hub: CacheHub) -> CacheSession {
        hub.session(id: sessionID, principal: VerifiedPrincipal("bus"), credentials: .bearer("token-bus"))
    }

    static func waitUntilSubscribed(_ hubs: [CacheHub]) async throws {
        try await waitUntil(seconds: 60) {
            hubs.allSatisfy {
                $0.replicationStatistics?.linkState == .subscribed
                    && ($0.replicationStatistics?.gapsRecovered ?? 0) >= 1
            }
        }
    }

    /// Hosts `--hubs` subscribing hubs, each holding the publisher's session (none under `--held 0`), and reports
    /// the CPU they took.
    static func subscriber(options: BenchOptions) async throws {
        let count = options.int("hubs", default: 5)
        let recorders = (0..<count).map { _ in DeliveryRecorder() }
        let hubs = try recorders.map { try hub(observer: $0, options: options) }
        try await waitUntilSubscribed(hubs)
        let sessions = options.int("held", default: 1) == 1 ? hubs.map(session(on:)) : []
        announce("READY")
        guard readLine() == "GO" else { throw BenchError("the driver did not say GO") }
        let (cpuBefore, wallBefore) = (ProcessCPU.now(), monotonicNanoseconds())
        for recorder in recorders { recorder.isRecording = true }
        guard readLine() == "STOP" else { throw BenchError("the driver did not say STOP") }
        let (cpuAfter, wallAfter) = (ProcessCPU.now(), monotonicNanoseconds())
        let applied = hubs.reduce(0) { $0 + ($1.replicationStatistics.map { $0.applied + $0.unknownSession } ?? 0) }
        // Written by hand (SubscriberResult's JSON): JSONEncoder took several thousand instructions per delay, which
        // scripts/bench/bus-callgrind.py would count as the cost of receiving a clear.
        let delays = recorders.flatMap(\.delays).map(String.init).joined(separator: ",")
        announce(
            "RESULT {\"hubs\":\(count),\"cpuSeconds\":\(cpuAfter - cpuBefore),"
                + "\"wallSeconds\":\(Double(wallAfter - wallBefore) / 1e9),\"applied\":\(applied),\"delays\":[\(delays)]}"
        )
        _ = sessions
        exit(0)
    }

    /// Sends `--rate` clears a second for `--seconds`, each stamped with the wall clock, then shuts its hub down.
    static func publisher(options: BenchOptions) async throws {
        let rate = options.int("rate", default: 1_000)
        let seconds = options.int("seconds", default: 5)
        let hub = try hub(observer: nil, options: options)
        try await waitUntilSubscribed([hub])
        let manager = session(on: hub).cacheManager
        let domain: CacheDomain.Name = "balances"
        announce("READY")
        guard readLine() == "GO" else { throw BenchError("the driver did not say GO") }
        let start = monotonicNanoseconds()
        let end = start + UInt64(seconds) * 1_000_000_000
        var sent = 0
        while monotonicNanoseconds() < end {
            let due = Int(Double(monotonicNanoseconds() - start) / 1e9 * Double(rate))
            while sent < due {
                await manager.clear(domain: domain, reason: .custom("\(stampPrefix)\(wallClockNanoseconds())"))
                sent += 1
            }
            try await Task.sleep(for: .microseconds(500))
        }
        let elapsed = Double(monotonicNanoseconds() - start) / 1e9
        await hub.shutdown()
        let result = PublisherResult(
            sent: sent, messages: hub.replicationStatistics?.messagesSent ?? sent, seconds: elapsed)
        announce("RESULT " + String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
        exit(0)
    }

    static func announce(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    static func wallClockNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_REALTIME, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    static func waitUntil(seconds: Double, _ condition: () -> Bool) async throws {
        let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
        while !condition() {
            guard monotonicNanoseconds() < deadline else { throw BenchError("a bus hub did not subscribe") }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}

/// One hub's deliveries: for each stamped clear it applied, wall-clock nanoseconds from the stamp to the first clear
/// event it caused here (a domain clear emits one per cache part).
final class DeliveryRecorder: CacheEventObserver {
    private let state = Mutex<(recording: Bool, last: String, delays: [UInt64])>((false, "", []))

    var isRecording: Bool {
        get { state.withLock { $0.recording } }
        set { state.withLock { $0.recording = newValue } }
    }

    var delays: [UInt64] { state.withLock { $0.delays } }

    /// Cheap for the events after a clear's first (one per cache part, all with the same reason): they stop at the
    /// comparison with the last name, so the bench's own bookkeeping weighs little in what a clear costs.
    func cacheDidEmit(_ event: CacheEvent) {
        guard case .cleared(let report) = event, case .custom(let name) = report.reason else { return }
        state.withLock { state in
            guard state.recording, state.last != name, name.hasPrefix(BusRoles.stampPrefix) else { return }
            let now = BusRoles.wallClockNanoseconds()
            state.last = name
            if let stamp = UInt64(name.dropFirst(BusRoles.stampPrefix.count)), now >= stamp {
                state.delays.append(now - stamp)
            }
        }
    }
}
