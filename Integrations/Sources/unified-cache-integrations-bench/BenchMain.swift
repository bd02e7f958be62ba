import FixtureSupport
import Foundation
import InMemoryTracing
import Logging
import Metrics
import MetricsTestKit
import Tracing
import UnifiedCache
import UnifiedCacheLogging
import UnifiedCacheMetrics
import UnifiedCacheTracing

/// ns per REST cache hit with the integrations installed and without: `swift run -c release` in Integrations/.
///
/// Variants: the bare hub; logging at `info` (events reach the logger, which drops them) with the metrics
/// integration (operation timers, the hub mirror collected every 10,000 hits) and tracing with no tracer
/// bootstrapped; the same with an in-memory tracer. A hit makes no upstream call, so it opens no span.
@main
struct IntegrationsBench {
    struct Balance: RequestType {
        struct Response: Decodable, Sendable {}
        var path: String { "/api/accounts/101/balance" }
        var cache: RequestCache? { RequestCache(key: "balances.101", timeout: .seconds(3_600)) }
    }

    static func main() async throws {
        let hits = Int(ProcessInfo.processInfo.environment["BENCH_HITS"] ?? "") ?? 300_000
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = .info
            return handler
        }
        // An in-memory backend: the mirror's counters and gauges and the timers record into it.
        MetricsSystem.bootstrap(TestMetrics())
        let tenant = try await FixtureServer.tenant("integrations-bench")
        var logger = Logger(label: "bench")
        logger.logLevel = .info

        let bare = try await measure(tenant, hits: hits, observer: nil, instrumentation: nil, collect: nil)
        let metrics = CacheOperationMetrics()
        let installed = try await measure(
            tenant, hits: hits, observer: CacheEventLogger(logger: logger),
            instrumentation: CacheInstrumentationGroup([CacheTracing(), metrics]), collect: true)
        let tracer = InMemoryTracer()
        let traced = try await measure(
            tenant, hits: hits, observer: CacheEventLogger(logger: logger),
            instrumentation: CacheInstrumentationGroup([CacheTracing(tracer: tracer), metrics]), collect: true)
        print("ns per cache hit (\(hits) hits, best of 5 rounds):")
        print(String(format: "  bare hub                                     %7.1f", bare))
        print(
            String(format: "  logging(info) + metrics + tracing, no tracer %7.1f  (+%.1f)", installed, installed - bare)
        )
        print(String(format: "  logging(info) + metrics + in-memory tracer   %7.1f  (+%.1f)", traced, traced - bare))
    }

    static func measure(
        _ tenant: FixtureTenant, hits: Int, observer: (any CacheEventObserver)?,
        instrumentation: (any CacheInstrumentation)?, collect: Bool?
    ) async throws -> Double {
        var configuration = CacheHub.Configuration(
            restBaseURL: tenant.baseURL, graphQLEndpoint: tenant.graphqlURL, maintenance: .init(interval: nil))
        configuration.instrumentation = instrumentation
        let hub = try CacheHub(configuration: configuration, settings: SettingsStore(), observer: observer)
        let mirror = collect == nil ? nil : CacheHubMetrics(hub: hub)
        let session = hub.session(
            id: "bench", principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice"))
        _ = try await session.rest.perform(with: Balance()).get()
        var best = Double.infinity
        for _ in 0..<5 {
            let start = ContinuousClock.now
            for hit in 0..<hits {
                _ = await session.rest.perform(with: Balance())
                if hit % 10_000 == 0 { mirror?.collect() }
            }
            let elapsed = ContinuousClock.now - start
            let (seconds, attoseconds) = elapsed.components
            let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
            best = min(best, nanoseconds / Double(hits))
        }
        await hub.shutdown()
        return best
    }
}
