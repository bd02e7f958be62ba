import CacheCore
import FixtureSupport
import Foundation
import RESTCache
import RedisReplication
import Synchronization
import UnifiedCache

/// The value door: typed hits, de-duplicated misses, and second-level hits beside REST's.
struct ValuesSuite: BenchSuite {
    let help = """
        ucache-bench values [--hits N] [--herd N] [--reads N] [--redis tls]

        1. Typed value hit: CacheSession.values.value(forKey:) of a cached struct, in one session of 1,000 live
           sessions that each hold a value. Warm-up 10,000 calls, then --hits calls (default 1,000,000) on one
           task, each timed with CLOCK_MONOTONIC: p50/p99 ns and hits per second (one core).
        2. De-duplication: --herd tasks (default 1,000) ask for the same missing key at once; its factory takes
           200 ms (an upstream call). Reported: factory runs, and the time until every caller had the value (ms).
        3. Second level: hubs A and B share a second level in a redis-server on loopback (as `ucache-bench l2`).
           --reads keys (default 2,000): B's first read of a value A stored (a value L2 hit: read, open, decode with
           the JSON coder, store in memory) beside B's first read of a REST answer A fetched (a REST L2 hit), µs.
        """

    private struct Summary: Codable, Sendable {
        var user: String
        var accounts: [String]
        var total: Double
    }

    func run(options: BenchOptions) async throws -> BenchReport {
        var rows: [BenchReport.Row] = []
        let tenant = try await FixtureServer.tenant("benchvalues")
        rows.append(try await typedHits(tenant: tenant, count: options.int("hits", default: 1_000_000)))
        rows.append(try await herd(tenant: tenant, size: options.int("herd", default: 1_000)))
        let redis = try await BenchRedis.start(options: options)
        defer { redis.server?.terminate() }
        var missNote = ""
        rows.append(
            contentsOf: try await secondLevel(
                tenant: tenant, redis: redis, reads: options.int("reads", default: 2_000), missNote: &missNote))
        return BenchReport(
            suite: "values",
            machine: BenchReport.machineDescription,
            columns: ["p50", "p99", "max", "per second", "factory runs"],
            rows: rows,
            notes: ["typed hit: ns; herd: ms; second level: µs", "\(redis.note); read deadline 5 ms.", missNote]
        )
    }

    private func typedHits(tenant: FixtureTenant, count: Int) async throws -> BenchReport.Row {
        let hub = try SecondLevelSuite.hub(tenant: tenant, url: nil, prefix: "unused")
        defer { Task { await hub.shutdown() } }
        var sessions: [CacheSession] = []
        for index in 0..<1_000 {
            let session = hub.session(
                id: "bench-\(index)", principal: VerifiedPrincipal("bench-\(index)"), credentials: .bearer("t"))
            _ = try await session.values.value(forKey: "summary") { Self.summary(index) }
            sessions.append(session)
        }
        let values = sessions[500].values
        let compose: @Sendable () async throws -> Summary = { Self.summary(-1) }
        for _ in 0..<10_000 { _ = try await values.value(forKey: "summary", factory: compose) }
        var samples = Samples()
        samples.reserve(count)
        let start = monotonicNanoseconds()
        for _ in 0..<count {
            let begin = monotonicNanoseconds()
            let summary = try await values.value(forKey: "summary", factory: compose)
            samples.append(monotonicNanoseconds() - begin)
            if summary.user != "bench-500" { throw BenchError("a hit returned another value") }
        }
        let seconds = Double(monotonicNanoseconds() - start) / 1e9
        return BenchReport.Row(
            name: "typed value hit, 1 of 1,000 sessions (ns)",
            values: [
                "p50": samples.percentile(0.5), "p99": samples.percentile(0.99), "per second": Double(count) / seconds,
            ])
    }

    private func herd(tenant: FixtureTenant, size: Int) async throws -> BenchReport.Row {
        let hub = try SecondLevelSuite.hub(tenant: tenant, url: nil, prefix: "unused")
        defer { Task { await hub.shutdown() } }
        let values = hub.session(id: "herd", principal: VerifiedPrincipal("herd"), credentials: .bearer("t")).values
        let begin = monotonicNanoseconds()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<size {
                group.addTask {
                    _ = try await values.value(forKey: "herd") {
                        // An upstream call of 200 ms: every caller asks while it runs.
                        try await Task.sleep(for: .milliseconds(200))
                        return Self.summary(0)
                    }
                }
            }
            try await group.waitForAll()
        }
        let milliseconds = Double(monotonicNanoseconds() - begin) / 1e6
        let statistics = hub.values.statistics()
        return BenchReport.Row(
            name: "herd of \(size) misses, one key (ms)",
            values: ["max": milliseconds, "factory runs": Double(statistics.factoryRuns)])
    }

    private func secondLevel(
        tenant: FixtureTenant, redis: BenchRedis, reads: Int, missNote: inout String
    ) async throws -> [BenchReport.Row] {
        let prefix = "ucache-bench:values:\(UUID().uuidString.prefix(8)):"
        let a = try SecondLevelSuite.hub(tenant: tenant, url: redis.configuration, prefix: prefix)
        let b = try SecondLevelSuite.hub(tenant: tenant, url: redis.configuration, prefix: prefix)
        for hub in [a, b] { try await waitUntil { hub.secondLevelStatistics?.store.isConnected == true } }
        let user = (principal: VerifiedPrincipal("bench"), credentials: UpstreamCredentials.bearer("token-alice"))
        let onA = a.session(id: "bench-user", principal: user.principal, credentials: user.credentials)
        let onB = b.session(id: "bench-user", principal: user.principal, credentials: user.credentials)
        let keys = (0..<reads).map { "bench.values.\($0)" }
        for (index, key) in keys.enumerated() {
            _ = try await onA.values.value(forKey: key) { Self.summary(index) }
            _ = try await SecondLevelSuite.read(onA, key)
        }
        try await SecondLevelSuite.settle(a)
        var valueHits = Samples()
        var restHits = Samples()
        let valueMisses = CallCounter()
        var restMisses = 0
        for key in keys {
            var begin = monotonicNanoseconds()
            _ = try await onB.values.value(forKey: key) {
                valueMisses.increment()
                return Self.summary(-1)
            }
            valueHits.append(monotonicNanoseconds() - begin)
            begin = monotonicNanoseconds()
            if try await SecondLevelSuite.read(onB, key) != .cache { restMisses += 1 }
            restHits.append(monotonicNanoseconds() - begin)
        }
        missNote =
            "L2 reads that were not hits (timeouts, dropped writes): \(valueMisses.count) of \(reads) values, "
            + "\(restMisses) of \(reads) REST answers."
        await a.shutdown()
        await b.shutdown()
        return [
            Self.row("value L2 hit: B reads what A stored (µs)", valueHits), Self.row("REST L2 hit (µs)", restHits),
        ]
    }

    private static func summary(_ index: Int) -> Summary {
        Summary(user: "bench-\(index)", accounts: ["101", "102", "103"], total: 1234.5)
    }

    private static func row(_ name: String, _ samples: Samples) -> BenchReport.Row {
        .init(
            name: name,
            values: [
                "p50": samples.percentile(0.5) / 1000, "p99": samples.percentile(0.99) / 1000,
                "max": samples.percentile(1.0) / 1000,
            ])
    }
}

/// Counts calls from concurrent factories.
private final class CallCounter: Sendable {
    private let value = Atomic<Int>(0)

    @discardableResult
    func increment() -> Int { value.add(1, ordering: .relaxed).newValue }

    var count: Int { value.load(ordering: .relaxed) }
}
