import CurlHTTP
import Foundation
import Synchronization

/// A long run of requests through cookie jars, watching the process's resident memory: a leak of a few bytes
/// per request (such as libcurl 7.88's cookie-file list) shows as a steady climb over a million requests.
struct SoakSuite: BenchSuite {
    let help = """
        ucache-bench soak --url URL [--requests N] [--concurrency N] [--jars N] [--jar-lifetime N]
                          [--samples N] [--max-growth-mib N] [--json]

        Method: --concurrency workers (default 16) issue GET requests to URL (default: $UCACHE_BENCH_COOKIE_URL;
        `make bench SUITE=soak` serves Fixtures/nginx's /cookie.json, which sets a new cookie on every answer)
        until --requests requests (default 1,000,000) have completed. Every request goes through one of --jars
        cookie jars (default 64), as a BFF's sessions would; a jar is replaced by a new one after --jar-lifetime
        requests (default 1,000), as sessions end. After a warm-up of 10,000 requests (pools, connections and
        allocator arenas reach their steady size), the resident set size (RSS, /proc/self/statm) is sampled
        at the start, --samples times during the run (default 10) and at the end.
        Reported: RSS in MiB at each sample and requests/s between samples. Fails when the RSS grew by more
        than --max-growth-mib (default 16) from start to end: memory must stay flat.
        """

    func run(options: BenchOptions) async throws -> BenchReport {
        // Not `options.string("url")`: that falls back to $UCACHE_BENCH_URL, whose answers set no cookie.
        guard let url = options.values["url"] ?? ProcessInfo.processInfo.environment["UCACHE_BENCH_COOKIE_URL"] else {
            throw BenchError(
                "no URL: pass --url or set UCACHE_BENCH_COOKIE_URL (make bench SUITE=soak starts nginx and sets it)")
        }
        let total = options.int("requests", default: 1_000_000)
        let concurrency = max(1, options.int("concurrency", default: 16))
        let jars = JarRotation(
            count: max(1, options.int("jars", default: 64)),
            lifetime: max(1, options.int("jar-lifetime", default: 1_000)))
        let sampleCount = max(1, options.int("samples", default: 10))
        let maximumGrowth = Double(options.int("max-growth-mib", default: 16))
        let client = try CurlHTTPClient()

        try await drive(client, url: url, jars: jars, concurrency: concurrency, total: min(10_000, total))
        var rows = [BenchReport.Row(name: "start", values: ["requests": 0, "RSS MiB": ResidentMemory.mebibytes()])]
        let start = rows[0].values["RSS MiB"] ?? 0
        var done = 0
        for sample in 1...sampleCount {
            let count = total * sample / sampleCount - done
            let begin = monotonicNanoseconds()
            try await drive(client, url: url, jars: jars, concurrency: concurrency, total: count)
            let seconds = Double(monotonicNanoseconds() - begin) / 1e9
            done += count
            rows.append(
                BenchReport.Row(
                    name: sample == sampleCount ? "end" : "sample \(sample)",
                    values: [
                        "requests": Double(done), "RSS MiB": ResidentMemory.mebibytes(),
                        "req/s": Double(count) / max(seconds, 1e-9),
                    ]))
        }
        await client.shutdown()
        let end = rows.last?.values["RSS MiB"] ?? 0
        let growth = end - start
        let report = BenchReport(
            suite: "soak",
            machine: BenchReport.machineDescription,
            columns: ["requests", "RSS MiB", "req/s"],
            rows: rows,
            notes: [
                "URL: \(url)", "libcurl \(CurlHTTPClient.libcurlVersion)",
                "\(concurrency) workers, \(jars.count) jars, each replaced after \(jars.lifetime) requests",
                String(
                    format: "RSS growth from start to end: %.2f MiB (%.1f bytes per request); limit %.0f MiB",
                    growth, growth * 1_048_576 / Double(max(total, 1)), maximumGrowth),
            ]
        )
        guard growth <= maximumGrowth else {
            print(report.table)
            throw BenchError(String(format: "RSS grew by %.2f MiB over %d requests: memory is not flat", growth, total))
        }
        return report
    }

    private func drive(
        _ client: CurlHTTPClient,
        url: String,
        jars: JarRotation,
        concurrency: Int,
        total: Int
    ) async throws {
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<concurrency {
                let count = total / concurrency + (worker < total % concurrency ? 1 : 0)
                group.addTask {
                    for _ in 0..<count {
                        let response = try await client.execute(.init(url: url, cookieJar: jars.next()))
                        guard response.status == 200 else { throw BenchError("status \(response.status)") }
                    }
                }
            }
            try await group.waitForAll()
        }
    }
}

/// The soak's sessions: `count` jars used in turn, each replaced by a fresh one after `lifetime` uses.
final class JarRotation: Sendable {
    let count: Int
    let lifetime: Int
    private let state: Mutex<(jars: [CookieJar], uses: [Int], cursor: Int)>

    init(count: Int, lifetime: Int) {
        self.count = count
        self.lifetime = lifetime
        state = Mutex(((0..<count).map { _ in CookieJar() }, Array(repeating: 0, count: count), 0))
    }

    func next() -> CookieJar {
        state.withLock { state in
            let index = state.cursor
            state.cursor = (index + 1) % count
            state.uses[index] += 1
            if state.uses[index] > lifetime {
                state.jars[index] = CookieJar()
                state.uses[index] = 1
            }
            return state.jars[index]
        }
    }
}

/// The resident set size of this process, from `/proc/self/statm` (Linux); zero where it is unavailable.
enum ResidentMemory {
    static func mebibytes() -> Double {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return 0 }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return 0 }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE))) / 1_048_576
    }
}
