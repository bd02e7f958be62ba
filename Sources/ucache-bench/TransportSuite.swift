import CurlHTTP
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// `CurlHTTPClient` and Foundation's `URLSession` side by side against the same small static URL.
struct TransportSuite: BenchSuite {
    let help = """
        ucache-bench transport --url URL [--requests N] [--levels 1,16,64] [--clients curl,urlsession] [--json]

        Method: for each client (CurlHTTPClient, URLSession) and each concurrency level, N concurrent
        workers (N = level) issue GET requests to URL (default: $UCACHE_BENCH_URL; `make bench` serves
        Fixtures/nginx's /small.json) until --requests requests (default 20000; 5000 for URLSession)
        have completed, after a warm-up of 500 requests that also opens the connections.
        Timed: each request from call to complete body (latency p50/p99), the whole run (requests/s),
        and the process's user+system CPU during the run divided by requests (client CPU per request;
        the server runs in another process). Ratio = CurlHTTPClient requests/s / URLSession requests/s.
        """

    func run(options: BenchOptions) async throws -> BenchReport {
        guard let url = options.string("url") else {
            throw BenchError("no URL: pass --url or set UCACHE_BENCH_URL (make bench starts nginx and sets it)")
        }
        let levels = (options.values["levels"] ?? "1,16,64").split(separator: ",").compactMap { Int($0) }
        let curlRequests = options.int("requests", default: 20_000)
        let sessionRequests = options.int("session-requests", default: min(curlRequests, 5_000))

        let clients = Set((options.values["clients"] ?? "curl,urlsession").split(separator: ",").map(String.init))
        let curl = try CurlHTTPClient()
        let session = URLSessionClient()
        var rows: [BenchReport.Row] = []
        for level in levels {
            let curlRun = try await measure(level: level, total: curlRequests) {
                let response = try await curl.execute(.init(url: url))
                guard response.status == 200 else { throw BenchError("status \(response.status)") }
            }
            rows.append(curlRun.row("CurlHTTPClient c=\(level)"))
            guard clients.contains("urlsession") else { continue }
            let sessionRun = try await measure(level: level, total: sessionRequests) {
                try await session.get(url)
            }
            var sessionRow = sessionRun.row("URLSession     c=\(level)")
            sessionRow.values["ratio"] = curlRun.requestsPerSecond / max(sessionRun.requestsPerSecond, 0.001)
            rows.append(sessionRow)
        }
        await curl.shutdown()
        return BenchReport(
            suite: "transport",
            machine: BenchReport.machineDescription,
            columns: ["req/s", "p50 µs", "p99 µs", "cpu µs/req", "ratio"],
            rows: rows,
            notes: [
                "URL: \(url)", "libcurl \(CurlHTTPClient.libcurlVersion)",
                "ratio on a URLSession row = CurlHTTPClient req/s ÷ URLSession req/s at that level",
            ]
        )
    }

    private struct Run {
        var requests: Int
        var seconds: Double
        var cpuSeconds: Double
        var samples: Samples
        var requestsPerSecond: Double { Double(requests) / seconds }

        func row(_ name: String) -> BenchReport.Row {
            BenchReport.Row(
                name: name,
                values: [
                    "req/s": requestsPerSecond,
                    "p50 µs": samples.percentile(0.50) / 1000,
                    "p99 µs": samples.percentile(0.99) / 1000,
                    "cpu µs/req": cpuSeconds / Double(requests) * 1e6,
                ])
        }
    }

    private func measure(
        level: Int,
        total: Int,
        _ operation: @escaping @Sendable () async throws -> Void
    ) async throws -> Run {
        _ = try await drive(level: level, total: min(500, total), operation)  // warm-up, opens connections
        let cpuBefore = ProcessCPU.now()
        let start = monotonicNanoseconds()
        let samples = try await drive(level: level, total: total, operation)
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        return Run(requests: total, seconds: seconds, cpuSeconds: ProcessCPU.now() - cpuBefore, samples: samples)
    }

    private func drive(
        level: Int,
        total: Int,
        _ operation: @escaping @Sendable () async throws -> Void
    ) async throws -> Samples {
        let perWorker = total / level
        let extra = total % level
        return try await withThrowingTaskGroup(of: Samples.self) { group in
            for worker in 0..<level {
                let count = perWorker + (worker < extra ? 1 : 0)
                group.addTask {
                    var samples = Samples()
                    for _ in 0..<count {
                        let begin = monotonicNanoseconds()
                        try await operation()
                        samples.append(monotonicNanoseconds() - begin)
                    }
                    return samples
                }
            }
            var all = Samples()
            for try await samples in group { all.append(contentsOf: samples) }
            return all
        }
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
