import FixtureSupport
import Foundation
import RESTCache

/// RESTCache's hot path and its worst cases: typed hits, a thundering herd, clearing a big session.
struct RESTSuite: BenchSuite {
    let help = """
        ucache-bench rest [--hits N] [--herd N] [--json]

        1. Typed cache hit: APIService.perform(with:) of a cached request (a decoded struct stored in the
           session's scope). Warm-up 10,000 calls, then --hits calls (default 1,000,000) on one task, each
           timed with CLOCK_MONOTONIC: p50/p99 ns and hits per second (one core).
        2. Thundering herd: --herd tasks (default 1,000) ask for the same uncached resource while the fixture
           server holds the upstream call (200 ms injected latency). Reported: upstream calls made (from the
           fixture's counters); the time from the leader's answer until every waiter's continuation was resumed
           (measured by CachedRequestStateManager.releaseStatistics); and, from outside, how long after the
           first caller finished each waiter's task ran to completion on the executor (p50, max).
        3. Clearing: a session scope with 10,000 entries while 1,000 other sessions hold 10 entries each;
           time of clear(scope:) over 20 repetitions (refilled each time): p50 and max.
        """

    func run(options: BenchOptions) async throws -> BenchReport {
        var rows: [BenchReport.Row] = []
        rows.append(try await typedHits(count: options.int("hits", default: 1_000_000)))
        rows.append(contentsOf: try await herd(size: options.int("herd", default: 1_000)))
        rows.append(try scopeClear())
        return BenchReport(
            suite: "rest",
            machine: BenchReport.machineDescription,
            columns: ["p50", "p99", "max", "per second", "upstream calls"],
            rows: rows,
            notes: [
                "typed hit: p50/p99 in ns; herd: release spread in µs; clear: duration in µs",
                "fixture server for the herd: \(try await FixtureServer.shared().baseURL)",
            ]
        )
    }

    private struct Small: Decodable, Sendable { var ok: Bool }

    private struct SmallRequest: RequestType {
        typealias Response = Small
        var path: String { "/api/feature-flags" }
        var cache: RequestCache? = RequestCache(key: "bench.small", timeout: .never)
    }

    private struct FlagsRequest: RequestType {
        struct Flag: Decodable, Sendable { var name: String }
        typealias Response = [Flag]
        var path: String { "/api/feature-flags" }
        var cache: RequestCache? = RequestCache(key: "bench.flags", timeout: .never, domains: ["featureFlags"])
    }

    private func typedHits(count: Int) async throws -> BenchReport.Row {
        let tenant = try await FixtureServer.tenant("benchhits")
        let store = try CacheStore()
        let service = APIService(
            baseURL: tenant.baseURL,
            client: try CurlHTTPClient(),
            cache: CacheManager(store: store, scope: .session("bench"))
        )
        let request = FlagsRequest()
        guard case .success = await service.perform(with: request) else { throw BenchError("warm-up fetch failed") }
        for _ in 0..<10_000 { _ = await service.perform(with: request) }
        var samples = Samples()
        samples.reserve(count)
        let start = monotonicNanoseconds()
        for _ in 0..<count {
            let begin = monotonicNanoseconds()
            let result = await service.perform(with: request)
            samples.append(monotonicNanoseconds() - begin)
            if case .failure = result { throw BenchError("a hit failed") }
        }
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        return BenchReport.Row(
            name: "typed cache hit (ns)",
            values: [
                "p50": samples.percentile(0.5), "p99": samples.percentile(0.99),
                "per second": Double(count) / seconds,
            ])
    }

    private func herd(size: Int) async throws -> [BenchReport.Row] {
        let tenant = try await FixtureServer.tenant("benchherd")
        try await tenant.setLatency(milliseconds: 200, route: "GET /api/feature-flags")
        let store = try CacheStore()
        let service = APIService(
            baseURL: tenant.baseURL,
            client: try CurlHTTPClient(),
            cache: CacheManager(store: store, scope: .session("herd"))
        )
        let finishTimes = await withTaskGroup(of: UInt64.self) { group in
            for _ in 0..<size {
                group.addTask {
                    _ = await service.perform(with: FlagsRequest())
                    return monotonicNanoseconds()
                }
            }
            return await group.reduce(into: [UInt64]()) { $0.append($1) }
        }
        let first = finishTimes.min() ?? 0
        var spread = Samples()
        for time in finishTimes { spread.append(time - first) }
        let upstream = try await tenant.counters().route("GET /api/feature-flags")
        let release = service.requestStates.releaseStatistics
        let releaseMicroseconds =
            Double(release.maximumReleaseDuration.components.attoseconds) / 1e12
            + Double(release.maximumReleaseDuration.components.seconds) * 1e6
        return [
            BenchReport.Row(
                name: "herd of \(size): all waiters resumed (µs)",
                values: ["max": releaseMicroseconds, "upstream calls": Double(upstream)]
            ),
            BenchReport.Row(
                name: "herd of \(size): until each waiter ran (µs)",
                values: ["p50": spread.percentile(0.5) / 1000, "max": spread.percentile(1.0) / 1000]
            ),
        ]
    }

    private func scopeClear() throws -> BenchReport.Row {
        let store = try CacheStore(configuration: .init(maxEntriesPerScope: 20_000))
        let payload = Array(repeating: 0, count: 8)
        for other in 0..<1_000 {
            for index in 0..<10 {
                store.insert(payload, byteCost: 64, key: "k\(index)", scope: .session("other-\(other)"))
            }
        }
        var durations = Samples()
        for _ in 0..<20 {
            for index in 0..<10_000 {
                store.insert(
                    payload,
                    byteCost: 64,
                    key: "balances.account_\(index)",
                    scope: .session("big"),
                    metadata: CacheEntryMetadata(domains: ["balances"], accounts: ["\(index)"])
                )
            }
            let begin = monotonicNanoseconds()
            let report = store.clear(scope: .session("big"), reason: .logout)
            durations.append(monotonicNanoseconds() - begin)
            guard report.entries == 10_000 else { throw BenchError("clear removed \(report.entries)") }
        }
        return BenchReport.Row(
            name: "clear 10k-entry scope, 1k others (µs)",
            values: [
                "p50": durations.percentile(0.5) / 1000, "max": durations.percentile(1.0) / 1000,
            ])
    }
}
