import Foundation
import InMemoryLogging
import InMemoryTracing
import IntegrationFixtures
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
        // A patient read deadline: with the default 5 ms, a loaded run turned the read into an unavailable one (a
        // miss failed as `unavailable`), and the timer's dimensions were those of a failure.
        configuration.secondLevel = SecondLevelConfiguration(
            store: RedisSecondLevelStore(configuration: store), secret: try SecondLevelSecret(Array(secret.utf8)),
            readDeadline: .milliseconds(TestTiming.milliseconds(10_000)))
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

        let redis = try #require(URLComponents(string: url))
        let host = try #require(redis.host)
        let port = redis.port ?? 6379
        let read = try #require(tracer.finishedSpans.first { $0.operationName == "BATCH" })
        #expect(read.kind == .client)
        #expect(read.attributes["db.system.name"]?.toSpanAttribute() == .string("redis"))
        #expect(read.attributes["db.operation.name"]?.toSpanAttribute() == .string("BATCH"))
        #expect(read.attributes["server.address"]?.toSpanAttribute() == .string(host))
        #expect(read.attributes["server.port"]?.toSpanAttribute() == .int64(Int64(port)))
        #expect(read.attributes["ucache.outcome"]?.toSpanAttribute() == .string("miss"))
        #expect(read.attributes["ucache.tier"]?.toSpanAttribute() == .string("l2"))
        let clear = try #require(tracer.finishedSpans.first { $0.operationName == "PUBLISH" })
        #expect(clear.attributes["db.system.name"]?.toSpanAttribute() == .string("redis"))
        #expect(clear.attributes["server.address"]?.toSpanAttribute() == .string(host))
        #expect(clear.attributes["ucache.reason"]?.toSpanAttribute() == .string("everything"))
        #expect(clear.kind == .producer)
        let server = [("server.address", host), ("server.port", "\(port)")]
        let readTimer = try metrics.expectTimer(
            "db.client.operation.duration",
            [("db.system.name", "redis"), ("db.operation.name", "BATCH")] + server + [("ucache.outcome", "miss")])
        #expect(readTimer.values.count == 1)
        let publishTimer = try metrics.expectTimer(
            "db.client.operation.duration",
            [("db.system.name", "redis"), ("db.operation.name", "PUBLISH")] + server + [("ucache.reason", "everything")]
        )
        #expect(publishTimer.values.count >= 1)
        #expect(logs.entries.contains { "\($0.message)" == "cache replication link up" && $0.level == .notice })
        for span in tracer.finishedSpans {
            // swift-format-ignore: ReplaceForEachWithForLoop
            span.attributes.forEach { name, value in
                #expect(IntegrationHarness.revealsSecret("\(name)=\(value)") == nil, "\(span.operationName) \(name)")
            }
        }
    }
}
