import FixtureSupport
import Foundation
import RESTCache

/// What resilience costs and what it buys: a fresh hit with the options on and off, and a hot key's latency over an
/// upstream slowed to 2 s with a 100 ms soft timeout.
struct ResilienceSuite: BenchSuite {
    let help = """
        ucache-bench resilience [--hits N] [--callers N] [--json]

        1. Fresh hit, options off and on: APIService.perform(with:) of a cached request fresh for an hour, on one
           task, --hits calls each (default 1,000,000) after 10,000 warm-up calls; "on" is fail-safe for an hour,
           a 100 ms soft timeout, a 2 s hard timeout and eager refresh at 90 % (the hits are before the threshold,
           so every hit pays the decision). p50/p99 ns; the difference of the p50s.
        2. Slow upstream: the fixture delays the route by 2 s; the key's entry is stale (the injected clock moved
           past its expiry) with a 100 ms soft timeout and fail-safe on. --callers tasks (default 8) read the key
           in a loop for 1.5 s, while the one upstream call is in flight: p50/p99/max ms of each read.
        """

    private struct Flag: Decodable, Sendable { var name: String }

    private struct FlagsRequest: RequestType {
        typealias Response = [Flag]
        var path: String { "/api/feature-flags" }
        var cache: RequestCache? = RequestCache(key: "bench.flags", timeout: .seconds(3_600))
    }

    private static let options = CacheResilience(
        failSafeMaxDuration: .seconds(3_600), softTimeout: .milliseconds(100), hardTimeout: .seconds(2),
        eagerRefreshThreshold: 0.9)

    func run(options: BenchOptions) async throws -> BenchReport {
        let hits = options.int("hits", default: 1_000_000)
        let off = try await freshHits(count: hits, resilience: .none)
        let on = try await freshHits(count: hits, resilience: Self.options)
        let slow = try await slowUpstream(callers: options.int("callers", default: 8))
        return BenchReport(
            suite: "resilience",
            machine: BenchReport.machineDescription,
            columns: ["p50", "p99", "max", "samples"],
            rows: [
                BenchReport.Row(
                    name: "fresh hit, options off (ns)",
                    values: ["p50": off.percentile(0.5), "p99": off.percentile(0.99)]),
                BenchReport.Row(
                    name: "fresh hit, options on (ns)", values: ["p50": on.percentile(0.5), "p99": on.percentile(0.99)]),
                BenchReport.Row(
                    name: "on minus off, p50 (ns)", values: ["p50": on.percentile(0.5) - off.percentile(0.5)]),
                BenchReport.Row(
                    name: "hot key, 2 s upstream, 100 ms soft timeout (ms)",
                    values: [
                        "p50": slow.percentile(0.5) / 1e6, "p99": slow.percentile(0.99) / 1e6,
                        "max": slow.percentile(1.0) / 1e6, "samples": Double(slow.nanoseconds.count),
                    ]),
            ],
            notes: ["fixture server: \(try await FixtureServer.shared().baseURL)"]
        )
    }

    private func freshHits(count: Int, resilience: CacheResilience) async throws -> Samples {
        let tenant = try await FixtureServer.tenant("benchres-hit")
        var configuration = APIService.Configuration()
        configuration.resilience = resilience
        let service = APIService(
            baseURL: tenant.baseURL, client: try CurlHTTPClient(),
            cache: CacheManager(store: try CacheStore(), scope: .session("bench")), configuration: configuration)
        let request = FlagsRequest()
        guard case .success = await service.perform(with: request) else { throw BenchError("warm-up fetch failed") }
        for _ in 0..<10_000 { _ = await service.perform(with: request) }
        var samples = Samples()
        samples.reserve(count)
        for _ in 0..<count {
            let begin = monotonicNanoseconds()
            let result = await service.perform(with: request)
            samples.append(monotonicNanoseconds() - begin)
            if case .failure = result { throw BenchError("a hit failed") }
        }
        return samples
    }

    private func slowUpstream(callers: Int) async throws -> Samples {
        let tenant = try await FixtureServer.tenant("benchres-slow")
        let clock = ManualCacheClock()
        var configuration = APIService.Configuration(honorsHTTPCaching: false)
        configuration.resilience = Self.options
        let service = APIService(
            baseURL: tenant.baseURL, client: try CurlHTTPClient(),
            cache: CacheManager(store: try CacheStore(clock: clock), scope: .session("bench")),
            configuration: configuration, clock: clock)
        guard case .success = await service.perform(with: FlagsRequest()) else {
            throw BenchError("warm-up fetch failed")
        }
        try await tenant.setLatency(milliseconds: 2_000, route: "GET /api/feature-flags")
        clock.advance(by: .seconds(3_601))
        let perCaller = await withTaskGroup(of: Samples.self) { group in
            for _ in 0..<callers {
                group.addTask {
                    var samples = Samples()
                    let end = monotonicNanoseconds() + 1_500_000_000
                    while monotonicNanoseconds() < end {
                        let begin = monotonicNanoseconds()
                        _ = await service.perform(with: FlagsRequest())
                        samples.append(monotonicNanoseconds() - begin)
                    }
                    return samples
                }
            }
            return await group.reduce(into: [Samples]()) { $0.append($1) }
        }
        try await tenant.setLatency(milliseconds: 0, route: "GET /api/feature-flags")
        var all = Samples()
        for samples in perCaller { all.append(contentsOf: samples) }
        return all
    }
}
