import FixtureSupport
import Foundation
import RedisReplication

/// The replication bus at fleet scale: many subscribing hubs in several processes on one redis-server, one
/// publisher process, and what receiving costs each replica and Redis.
struct BusSuite: BenchSuite {
    let help = """
        ucache-bench bus [--subscribers 5,10,20] [--rates 250,1000] [--seconds N] [--hubs-per-process N] [--held 0]
            [--batch N] [--window-us N] [--fleet N] [--fleet-rate N] [--json]

        Starts a redis-server on a free loopback port (or uses UCACHE_REDIS_URL), then, for every subscriber count
        and rate, first without batching and then with it (--batch clears per message at most, default 64, and a
        batching window of --window-us, default 5,000; --batch 1 measures without batching only): child processes
        of this binary holding the subscriber hubs (--hubs-per-process each, default 5; at least two processes),
        every hub subscribed and holding the session the clears name (under --held 0 none does: each clear is
        received, opened and found to concern no session here), and one publisher process sending
        clearBalancesCache-like domain clears at the rate for --seconds (default 4), each stamped with the wall
        clock. Measured between GO and STOP: the subscriber processes' CPU (getrusage, user + system) divided by
        their hubs, as a share of one core and per received clear; Redis's CPU (INFO CPU used_cpu_sys + user,
        before and after); the messages the clears left in; delivery from the stamp to the clear event on each hub
        (p50, p99). Then fits per-replica CPU = a + m × messages/s + c × clears/s and Redis CPU = r0 + r1 ×
        publishes/s + r2 × deliveries/s to all the points, and predicts, with and without batching, a fleet of
        --fleet replicas (default 50) each publishing --fleet-rate clears/s (default 1,000). Points where less than
        95 % of the deliveries were applied (the machine saturated) stay out of the fit. Not part of `all`.
        """

    struct Point {
        var subscribers: Int
        /// Clears per message at most (1: batching off).
        var batch: Int
        var rate: Double
        /// Sealed messages per second the publisher sent (the rate without batching).
        var messageRate: Double
        var replicaCPU: Double
        var microsecondsPerClear: Double
        var redisCPU: Double
        var p50: Double
        var p99: Double
        var delivered: Int
        var expected: Int

        var clearsPerMessage: Double { rate / max(messageRate, 1e-9) }
    }

    func run(options: BenchOptions) async throws -> BenchReport {
        switch options.string("role") {
        case "subscriber":
            try await BusRoles.subscriber(options: options)
        case "publisher":
            try await BusRoles.publisher(options: options)
        default:
            break
        }
        let counts = Self.list(options.string("subscribers") ?? "5,10,20")
        let rates = Self.list(options.string("rates") ?? "250,1000")
        let seconds = options.int("seconds", default: 4)
        let perProcess = options.int("hubs-per-process", default: 5)
        let batch = options.int("batch", default: 64)
        let window = options.int("window-us", default: 5_000)
        let modes = batch > 1 ? [(1, 0), (batch, window)] : [(1, 0)]
        let redis = try await BenchRedis.start(options: options)
        let url = try Self.url(of: redis)
        let control = try BareRedisClient(redis.configuration)
        var points: [Point] = []
        for (clears, windowMicroseconds) in modes {
            for count in counts {
                for rate in rates {
                    points.append(
                        try await Self.measure(
                            subscribers: count, rate: rate, seconds: seconds, perProcess: perProcess,
                            held: options.int("held", default: 1),
                            batching: ["--batch", "\(clears)", "--window-us", "\(windowMicroseconds)"],
                            batch: clears, url: url, control: control))
                }
            }
        }
        await redis.server?.kill()
        let fleet = Double(options.int("fleet", default: 50))
        let fleetRate = Double(options.int("fleet-rate", default: 1_000))
        let model = BusModel(points: points)
        let predictions = modes.map { mode in
            model.prediction(replicas: fleet, ratePerReplica: fleetRate, batch: mode.0, windowMicroseconds: mode.1)
        }
        return BenchReport(
            suite: "bus",
            machine: BenchReport.machineDescription,
            columns: [
                "replica %core", "µs/clear", "clears/message", "Redis %core", "p50 µs", "p99 µs", "delivered %",
            ],
            rows: points.map { point in
                .init(
                    name: "\(point.subscribers) subscribers, \(Int(point.rate.rounded())) clears/s, "
                        + (point.batch > 1 ? "batching" : "one clear a message"),
                    values: [
                        "replica %core": point.replicaCPU * 100, "µs/clear": point.microsecondsPerClear,
                        "clears/message": point.clearsPerMessage, "Redis %core": point.redisCPU * 100,
                        "p50 µs": point.p50, "p99 µs": point.p99,
                        "delivered %": Double(point.delivered) / Double(max(1, point.expected)) * 100,
                    ])
            } + predictions.map(\.row),
            notes: [
                "\(redis.note); \(seconds) s per point, \(perProcess) hubs per subscriber process, "
                    + (options.int("held", default: 1) == 1
                        ? "every hub holding the session the clears name; "
                        : "no hub holding the session the clears name (delivery not timed); ")
                    + (batch > 1
                        ? "batching: at most \(batch) clears a message, a \(window) µs window."
                        : "batching not measured.")
            ] + model.notes + predictions.flatMap(\.notes))
    }

    private static func list(_ text: String) -> [Int] {
        text.split(separator: ",").compactMap { Int($0.trimmingCharacters(in: .whitespaces)) }
    }

    /// The URL children connect with (the password included: they are this process's own children).
    private static func url(of redis: BenchRedis) throws -> String {
        if let server = redis.server { return server.url }
        guard let given = ProcessInfo.processInfo.environment[RedisReplicationConfiguration.urlEnvironmentVariable]
        else { throw BenchError("no Redis URL for the children") }
        return given
    }

    private static func measure(
        subscribers: Int, rate: Int, seconds: Int, perProcess: Int, held: Int, batching: [String], batch: Int,
        url: String, control: BareRedisClient
    ) async throws -> Point {
        let channel = "ucache-bench-bus:\(UUID().uuidString.prefix(8))"
        let processes = max(2, (subscribers + perProcess - 1) / perProcess)
        let shares = (0..<processes).map { subscribers / processes + ($0 < subscribers % processes ? 1 : 0) }
        let children = try shares.map {
            try BusChild(
                ["bus", "--role", "subscriber", "--hubs", "\($0)", "--held", "\(held)"] + batching, url: url,
                channel: channel)
        }
        let publisher = try BusChild(
            ["bus", "--role", "publisher", "--rate", "\(rate)", "--seconds", "\(seconds)"] + batching, url: url,
            channel: channel)
        for child in children + [publisher] {
            guard child.readLine() == "READY" else { throw BenchError("a bus child did not start") }
        }
        let redisBefore = try Self.redisCPU(control)
        let wallBefore = monotonicNanoseconds()
        for child in children { child.send("GO") }
        publisher.send("GO")
        let sent = try publisher.result(BusRoles.PublisherResult.self)
        try await Task.sleep(for: .milliseconds(500))  // the last clears reach every hub
        for child in children { child.send("STOP") }
        let results = try children.map { try $0.result(BusRoles.SubscriberResult.self) }
        let redisAfter = try Self.redisCPU(control)
        let wall = Double(monotonicNanoseconds() - wallBefore) / 1e9
        var delays = Samples()
        for result in results { for delay in result.delays { delays.append(delay) } }
        let cpu = results.reduce(0) { $0 + $1.cpuSeconds }
        // CPU over the seconds clears were sent (the short idle tail until STOP counted in, a slight overestimate).
        let busy = min(sent.seconds, results.map(\.wallSeconds).max() ?? wall)
        let delivered = results.reduce(0) { $0 + $1.applied }
        let perHubMessages = Double(sent.sent)
        return Point(
            subscribers: subscribers, batch: batch, rate: Double(sent.sent) / sent.seconds,
            messageRate: Double(sent.messages) / sent.seconds, replicaCPU: cpu / Double(subscribers) / busy,
            microsecondsPerClear: cpu / Double(subscribers) / max(1, perHubMessages) * 1e6,
            redisCPU: (redisAfter - redisBefore) / busy,
            p50: delays.percentile(0.5) / 1000, p99: delays.percentile(0.99) / 1000,
            delivered: delivered, expected: sent.sent * subscribers)
    }

    /// used_cpu_sys + used_cpu_user of the server, in seconds.
    private static func redisCPU(_ client: BareRedisClient) throws -> Double {
        let info = try client.command(["INFO", "CPU"])
        var total = 0.0
        for line in info.split(whereSeparator: \.isNewline) {
            let parts = line.split(separator: ":")
            guard parts.count == 2, parts[0] == "used_cpu_sys" || parts[0] == "used_cpu_user" else { continue }
            total += Double(parts[1].trimmingCharacters(in: .whitespaces)) ?? 0
        }
        return total
    }
}

/// A child process of this binary, spoken to in lines.
final class BusChild {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer: [UInt8] = []

    init(_ arguments: [String], url: String, channel: String) throws {
        process.executableURL = Bundle.main.executableURL ?? URL(fileURLWithPath: CommandLine.arguments[0])
        process.arguments = arguments
        var environment = ProcessInfo.processInfo.environment
        environment[RedisReplicationConfiguration.urlEnvironmentVariable] = url
        environment[RedisReplicationConfiguration.channelEnvironmentVariable] = channel
        process.environment = environment
        process.standardInput = input
        process.standardOutput = output
        try process.run()
    }

    func send(_ line: String) {
        input.fileHandleForWriting.write(Data((line + "\n").utf8))
    }

    /// The child's next line (blocking); nil once it closed its output.
    func readLine() -> String? {
        while true {
            if let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: buffer[..<newline], as: UTF8.self)
                buffer.removeSubrange(...newline)
                return line
            }
            let data = output.fileHandleForReading.availableData
            guard !data.isEmpty else { return nil }
            buffer.append(contentsOf: data)
        }
    }

    /// The child's `RESULT` line, decoded; then waits for it to exit.
    func result<Value: Decodable>(_ type: Value.Type) throws -> Value {
        while let line = readLine() {
            guard line.hasPrefix("RESULT ") else { continue }
            process.waitUntilExit()
            return try JSONDecoder().decode(Value.self, from: Data(line.dropFirst("RESULT ".count).utf8))
        }
        throw BenchError("a bus child ended without a result")
    }
}
