import FixtureSupport
import Foundation
import InMemoryLogging
import InMemoryTracing
import Logging
import MetricsTestKit
import RedisReplication
import Testing
import Tracing
import UnifiedCache
import UnifiedCacheLogging
import UnifiedCacheMetrics
import UnifiedCacheTracing

@Suite("Second-level reads and replicated clears reach the tracer, the timers and the log")
struct FleetOperationsTests {
    @Test("an L2 read and a replicated clear each have a span and a timer; the link's change is a notice")
    func fleetOperations() async throws {
        let tracer = InMemoryTracer()
        let metrics = TestMetrics()
        let logs = InMemoryLogHandler()
        var logger = Logger(label: "bff") { _ in logs }
        logger.logLevel = .info
        let url = try await RedisTestServer.sharedURL()
        let unique = "integrations:\(UUID().uuidString.prefix(8))"
        let secret = "a-fleet-secret-of-32-bytes-or-more"
        var store = try RedisSecondLevelConfiguration(url: url)
        store.keyPrefix = "ucache-test:\(unique):"
        var bus = try RedisReplicationConfiguration(url: url)
        bus.channel = "ucache-test:\(unique)"
        let tenant = try await FixtureServer.tenant("fleet-ops")
        var configuration = CacheHub.Configuration(
            restBaseURL: tenant.baseURL, graphQLEndpoint: tenant.graphqlURL, maintenance: .init(interval: nil))
        configuration.replication = ReplicationConfiguration(
            transport: RedisReplicationTransport(configuration: bus),
            secret: try ReplicationSecret(Array(secret.utf8)), observer: ReplicationEventLogger(logger: logger).observe)
        configuration.secondLevel = SecondLevelConfiguration(
            store: RedisSecondLevelStore(configuration: store), secret: try SecondLevelSecret(Array(secret.utf8)))
        configuration.instrumentation = CacheInstrumentationGroup([
            CacheTracing(tracer: tracer), CacheOperationMetrics(factory: metrics),
        ])
        let hub = try CacheHub(configuration: configuration, settings: SettingsStore())
        try await waitUntil {
            hub.secondLevelStatistics?.store.isConnected == true && hub.replicationStatistics?.linkState == .subscribed
        }
        let session = hub.session(
            id: "session-alice", principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice"))
        _ = try await session.rest.perform(with: IntegrationHarness.balance).get()
        _ = await hub.endSession(id: "session-alice", reason: .logout)
        await hub.shutdown()

        let read = try #require(tracer.finishedSpans.first { $0.operationName == "cache.l2.read" })
        #expect(read.attributes["cache.outcome"]?.toSpanAttribute() == .string("miss"))
        let clear = try #require(tracer.finishedSpans.first { $0.operationName == "cache.replication.clear" })
        #expect(clear.attributes["cache.reason"]?.toSpanAttribute() == .string("everything"))
        #expect(clear.kind == .producer)
        let readTimer = try metrics.expectTimer(
            "ucache_l2_read_duration_seconds", [("part", "rest"), ("outcome", "miss")])
        #expect(readTimer.values.count == 1)
        #expect(
            try metrics.expectTimer("ucache_replication_publish_duration_seconds", [("kind", "everything")]).values
                .count >= 1)
        #expect(logs.entries.contains { "\($0.message)" == "cache replication link up" && $0.level == .notice })
        for span in tracer.finishedSpans {
            // swift-format-ignore: ReplaceForEachWithForLoop
            span.attributes.forEach { name, value in
                #expect(IntegrationHarness.revealsSecret("\(name)=\(value)") == nil, "\(span.operationName) \(name)")
            }
        }
    }
}
