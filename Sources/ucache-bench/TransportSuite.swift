import CurlHTTP
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `CurlHTTPClient` against the floor it can reach (bare libcurl-multi) and against Foundation's `URLSession`,
/// all on the same small static URL.
struct TransportSuite: BenchSuite {
    let help = """
        ucache-bench transport --url URL [--requests N] [--rounds R] [--levels 1,16,64]
                               [--clients curl,curlexec,bare,bareopts,awaited,awaitedexec,urlsession] [--json]

        Method: for each concurrency level, N transfers in flight (N = level) issue GET requests to URL
        (default: $UCACHE_BENCH_URL; `make bench` serves Fixtures/nginx's /small.json over keep-alive) until
        --requests requests (default 20000) have completed, after an untimed warm-up of 500 that also opens
        the connections.
          CurlHTTPClient      N tasks, each awaiting `execute` in a loop.
          CurlHTTPClient on its executor  the same N tasks preferring `client.executor`: they run on the
                              client's loop thread, so no request or answer crosses threads.
          bare libcurl-multi  the floor: one thread, curl_multi_poll, N easy handles set up once and
                              re-added when done, body bytes only counted (BareCurlMultiBaseline.swift).
          bare + client options  the same loop with, set once per handle, the libcurl options CurlHTTPClient
                              sets for its guarantees (timeouts, limits, protocols, redirects, encodings,
                              User-Agent, callbacks): libcurl's own work for them.
          bare + client options, awaited  the floor of any async API over that loop: N tasks, each awaiting
                              its handle's answer through a continuation resumed by the loop thread, nothing
                              else (BareAsyncBaseline.swift); "on the loop thread": the tasks prefer the loop as
                              their executor, as with `client.executor`.
          URLSession          N tasks (default 5000 requests, --session-requests); once per level.
        Every row but URLSession alternates R times per level (default 3) so machine noise hits all; each figure is
        the median of the R runs.
        Timed: each request from call (or curl_multi_add_handle) to complete body (latency p50/p99), the whole
        run (requests/s), and the process's user+system CPU (getrusage) during the run divided by requests
        (client CPU per request; nginx runs in another process).
        cpu ÷ bare    = CPU µs/request ÷ bare CPU µs/request (goal for CurlHTTPClient ≤ 1.05)
        req/s ÷ bare  = requests/s ÷ bare requests/s (goal for CurlHTTPClient ≥ 0.95)
        A note per level gives CurlHTTPClient ÷ bare + client options (libcurl's work for the guarantees taken
        out) and CurlHTTPClient ÷ the awaited floor of the same executor (what awaiting costs taken out too).
        vs URLSession = CurlHTTPClient requests/s ÷ URLSession requests/s
        """

    func run(options: BenchOptions) async throws -> BenchReport {
        guard let url = options.string("url") else {
            throw BenchError("no URL: pass --url or set UCACHE_BENCH_URL (make bench starts nginx and sets it)")
        }
        let levels = (options.values["levels"] ?? "1,16,64").split(separator: ",").compactMap { Int($0) }
        let requests = options.int("requests", default: 20_000)
        let sessionRequests = options.int("session-requests", default: min(requests, 5_000))
        let rounds = max(1, options.int("rounds", default: 3))
        let clients = Set(
            (options.values["clients"] ?? "curl,curlexec,bare,bareopts,awaited,awaitedexec,urlsession")
                .split(separator: ",").map(
                    String.init))

        let loadBefore = LoadAverage.now()
        let curl = try CurlHTTPClient()
        let session = URLSessionClient()
        var rows: [BenchReport.Row] = []
        var roundNotes: [String] = []
        for level in levels {
            var curlRuns: [Run] = []
            var executorRuns: [Run] = []
            var bareRuns: [Run] = []
            var optionRuns: [Run] = []
            var awaitedRuns: [Run] = []
            var awaitedLoopRuns: [Run] = []
            for _ in 0..<rounds {
                if clients.contains("curl") {
                    curlRuns.append(
                        try await measure(level: level, total: requests) { _ in
                            let response = try await curl.execute(.init(url: url))
                            guard response.status == 200 else { throw BenchError("status \(response.status)") }
                        })
                }
                if clients.contains("curlexec") {
                    executorRuns.append(
                        try await measure(level: level, total: requests, executor: curl.executor) { _ in
                            let response = try await curl.execute(.init(url: url))
                            guard response.status == 200 else { throw BenchError("status \(response.status)") }
                        })
                }
                if clients.contains("bare") {
                    bareRuns.append(try await bareRun(url: url, level: level, total: requests, clientOptions: false))
                }
                if clients.contains("bareopts") {
                    optionRuns.append(try await bareRun(url: url, level: level, total: requests, clientOptions: true))
                }
                if clients.contains("awaited") {
                    awaitedRuns.append(try await awaitedRun(url: url, level: level, total: requests, onLoop: false))
                }
                if clients.contains("awaitedexec") {
                    awaitedLoopRuns.append(try await awaitedRun(url: url, level: level, total: requests, onLoop: true))
                }
            }
            let bareRow = bareRuns.isEmpty ? nil : Run.medianRow(of: bareRuns, name: "bare libcurl-multi c=\(level)")
            for (runs, name) in [
                (curlRuns, "CurlHTTPClient     c="), (executorRuns, "CurlHTTPClient on its executor c="),
            ]
            where !runs.isEmpty {
                var row = Run.medianRow(of: runs, name: "\(name)\(level)")
                if let bareRow {
                    row.values["cpu ÷ bare"] = row.values["cpu µs/req"]! / bareRow.values["cpu µs/req"]!
                    row.values["req/s ÷ bare"] = row.values["req/s"]! / bareRow.values["req/s"]!
                }
                rows.append(row)
            }
            if let bareRow { rows.append(bareRow) }
            if var optionRow = optionRuns.isEmpty
                ? nil : Run.medianRow(of: optionRuns, name: "bare + client options c=\(level)")
            {
                if let bareRow {
                    optionRow.values["cpu ÷ bare"] = optionRow.values["cpu µs/req"]! / bareRow.values["cpu µs/req"]!
                    optionRow.values["req/s ÷ bare"] = optionRow.values["req/s"]! / bareRow.values["req/s"]!
                }
                for curlRow in rows
                where curlRow.name.hasPrefix("CurlHTTPClient") && curlRow.name.hasSuffix("c=\(level)") {
                    let cpu = curlRow.values["cpu µs/req"]! / optionRow.values["cpu µs/req"]!
                    let throughput = curlRow.values["req/s"]! / optionRow.values["req/s"]!
                    let client = curlRow.name.replacingOccurrences(of: "c=\(level)", with: "")
                        .trimmingCharacters(in: .whitespaces)
                    roundNotes.append(
                        "c=\(level) \(client) ÷ bare + client options (the wrapper's own cost): "
                            + String(format: "cpu %.2f, req/s %.2f", cpu, throughput))
                }
                rows.append(optionRow)
            }
            for (floorRuns, floorName, clientName) in [
                (awaitedRuns, "bare + client options, awaited c=", "CurlHTTPClient     c="),
                (
                    awaitedLoopRuns, "bare + client options, awaited on the loop thread c=",
                    "CurlHTTPClient on its executor c="
                ),
            ] where !floorRuns.isEmpty {
                var floorRow = Run.medianRow(of: floorRuns, name: "\(floorName)\(level)")
                if let bareRow {
                    floorRow.values["cpu ÷ bare"] = floorRow.values["cpu µs/req"]! / bareRow.values["cpu µs/req"]!
                    floorRow.values["req/s ÷ bare"] = floorRow.values["req/s"]! / bareRow.values["req/s"]!
                }
                if let clientRow = rows.first(where: { $0.name == "\(clientName)\(level)" }) {
                    let cpu = clientRow.values["cpu µs/req"]! / floorRow.values["cpu µs/req"]!
                    let throughput = clientRow.values["req/s"]! / floorRow.values["req/s"]!
                    roundNotes.append(
                        "c=\(level) \(clientName.dropLast(2).trimmingCharacters(in: .whitespaces)) ÷ \(floorName.dropLast(3)) "
                            + String(
                                format: "(the wrapper's cost beyond awaiting): cpu %.2f, req/s %.2f", cpu, throughput))
                }
                rows.append(floorRow)
            }
            roundNotes.append(
                "c=\(level) cpu µs/req (user part) by round: CurlHTTPClient \(Run.cpuList(curlRuns)); "
                    + "on its executor \(Run.cpuList(executorRuns)); bare \(Run.cpuList(bareRuns)); "
                    + "bare + client options \(Run.cpuList(optionRuns)); awaited \(Run.cpuList(awaitedRuns)); "
                    + "awaited on the loop thread \(Run.cpuList(awaitedLoopRuns))"
            )

            guard clients.contains("urlsession") else { continue }
            let sessionRun = try await measure(level: level, total: sessionRequests) { _ in
                try await session.get(url)
            }
            var sessionRow = sessionRun.row("URLSession         c=\(level)")
            if let curlRow = rows.first(where: {
                $0.name.hasPrefix("CurlHTTPClient") && $0.name.hasSuffix("c=\(level)")
            }) {
                sessionRow.values["vs URLSession"] = curlRow.values["req/s"]! / max(sessionRun.requestsPerSecond, 0.001)
            }
            rows.append(sessionRow)
        }
        await curl.shutdown()
        return BenchReport(
            suite: "transport",
            machine: BenchReport.machineDescription,
            columns: ["req/s", "p50 µs", "p99 µs", "cpu µs/req", "cpu ÷ bare", "req/s ÷ bare", "vs URLSession"],
            rows: rows,
            notes: [
                "URL: \(url), libcurl \(CurlHTTPClient.libcurlVersion), \(requests) requests per run",
                "CurlHTTPClient and both bare rows: median of \(rounds) interleaved runs each",
                "cpu ÷ bare, req/s ÷ bare: CurlHTTPClient ÷ bare libcurl-multi at that level "
                    + "(goal: cpu ≤ 1.05, req/s ≥ 0.95 at 16 and 64)",
                "vs URLSession (on the URLSession row): CurlHTTPClient req/s ÷ URLSession req/s",
                "load average (1 min) before: \(loadBefore), after: \(LoadAverage.now()) "
                    + "(on \(ProcessInfo.processInfo.activeProcessorCount) cores; other processes skew every figure)",
            ] + roundNotes
        )
    }

    private struct Run {
        var requests: Int
        var seconds: Double
        var cpuSeconds: Double
        /// The user-space part of `cpuSeconds` (the rest is the kernel: sockets, scheduling).
        var userSeconds: Double
        var samples: Samples
        var requestsPerSecond: Double { Double(requests) / seconds }
        var cpuMicrosecondsPerRequest: Double { cpuSeconds / Double(requests) * 1e6 }

        func row(_ name: String) -> BenchReport.Row {
            BenchReport.Row(
                name: name,
                values: [
                    "req/s": requestsPerSecond,
                    "p50 µs": samples.percentile(0.50) / 1000,
                    "p99 µs": samples.percentile(0.99) / 1000,
                    "cpu µs/req": cpuMicrosecondsPerRequest,
                ])
        }

        /// Each column's median over the runs (not the row of the median run).
        static func medianRow(of runs: [Run], name: String) -> BenchReport.Row {
            let rows = runs.map { $0.row(name) }
            var values: [String: Double] = [:]
            for key in rows[0].values.keys {
                let sorted = rows.compactMap { $0.values[key] }.sorted()
                values[key] =
                    sorted.count % 2 == 1
                    ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
            }
            return BenchReport.Row(name: name, values: values)
        }

        static func cpuList(_ runs: [Run]) -> String {
            guard !runs.isEmpty else { return "-" }
            return runs.map { run in
                let user = run.userSeconds / Double(run.requests) * 1e6
                return String(format: "%.1f (%.1f)", run.cpuMicrosecondsPerRequest, user)
            }.joined(separator: " ")
        }
    }

    private func bareRun(url: String, level: Int, total: Int, clientOptions: Bool) async throws -> Run {
        let bare = try await BareCurlMultiBaseline.measure(
            url: url, level: level, total: total, warmUp: min(500, total), clientOptions: clientOptions)
        return Run(
            requests: total, seconds: bare.seconds, cpuSeconds: bare.cpuSeconds, userSeconds: bare.userSeconds,
            samples: bare.samples)
    }

    private func awaitedRun(url: String, level: Int, total: Int, onLoop: Bool) async throws -> Run {
        let loop = try AsyncLoop(url: url, level: level)
        defer { loop.stop() }
        return try await measure(level: level, total: total, executor: onLoop ? loop : nil) { worker in
            try await loop.get(slot: worker)
        }
    }

    private func measure(
        level: Int,
        total: Int,
        executor: (any TaskExecutor)? = nil,
        _ operation: @escaping @Sendable (_ worker: Int) async throws -> Void
    ) async throws -> Run {
        // warm-up, opens the connections
        _ = try await drive(level: level, total: min(500, total), executor: executor, operation)
        let cpuBefore = ProcessCPU.now()
        let userBefore = ProcessCPU.user()
        let start = monotonicNanoseconds()
        let samples = try await drive(level: level, total: total, executor: executor, operation)
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        return Run(
            requests: total, seconds: seconds, cpuSeconds: ProcessCPU.now() - cpuBefore,
            userSeconds: ProcessCPU.user() - userBefore, samples: samples)
    }

    private func drive(
        level: Int,
        total: Int,
        executor: (any TaskExecutor)?,
        _ operation: @escaping @Sendable (_ worker: Int) async throws -> Void
    ) async throws -> Samples {
        let perWorker = total / level
        let extra = total % level
        return try await withThrowingTaskGroup(of: Samples.self) { group in
            for worker in 0..<level {
                let count = perWorker + (worker < extra ? 1 : 0)
                group.addTask(executorPreference: executor) {
                    var samples = Samples()
                    samples.reserve(count)
                    for _ in 0..<count {
                        let begin = monotonicNanoseconds()
                        try await operation(worker)
                        samples.append(monotonicNanoseconds() - begin)
                    }
                    return samples
                }
            }
            var all = Samples()
            all.reserve(total)
            for try await samples in group { all.append(contentsOf: samples) }
            return all
        }
    }
}

extension ProcessCPU {
    /// Process CPU time spent in user space.
    static func user() -> Double {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    }
}

/// The 1-minute load average, so every report says how busy the machine was.
enum LoadAverage {
    static func now() -> String {
        guard let text = try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8) else { return "?" }
        return String(text.split(separator: " ").first ?? "?")
    }
}

/// Foundation's client, configured as a fair opponent: no cache, enough connections per host.
final class URLSessionClient: Sendable {
    private let session: URLSession

    init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.httpMaximumConnectionsPerHost = 64
        session = URLSession(configuration: configuration)
    }

    func get(_ url: String) async throws {
        guard let target = URL(string: url) else { throw BenchError("bad URL") }
        let (_, response) = try await session.data(from: target)
        guard (response as? HTTPURLResponse)?.statusCode == 200 else { throw BenchError("URLSession: not 200") }
    }
}

struct BenchError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
