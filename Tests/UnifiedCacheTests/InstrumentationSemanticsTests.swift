import FixtureSupport
import Foundation
import Synchronization
import Testing
import UnifiedCache

@Suite("Instrumentation: what the hub tells of fetches and hits, and its metrics as values")
struct InstrumentationSemanticsTests {
    @Test("a fetch carries the upstream's host, port and route template; each hit is reported once, tier and outcome")
    func fetchesAndHits() async throws {
        let heard = Heard()
        let (tenant, hub) = try await Self.hub("semantics-hits", heard)
        let session = Self.alice(hub)
        let request = CachedGET(path: "/api/accounts/101/balance", key: "balances.101")
        _ = try await session.rest.perform(with: request).get()
        _ = try await session.rest.perform(with: request).get()
        let profile = UntypedGraphQLOperation(
            document: "query UserProfile { profile { id displayName } }", operationName: "UserProfile")
        _ = try await session.graphQL.fetch(operation: profile).get()
        _ = try await session.graphQL.fetch(operation: profile).get()

        #expect(
            heard.hits() == [
                CacheHit(part: .rest, tier: .l1, outcome: .hit), CacheHit(part: .graphql, tier: .l1, outcome: .hit),
            ])
        let upstream = try #require(URLComponents(string: tenant.baseURL))
        let fetch = try #require(heard.ended().first { $0.part == "rest" })
        #expect(fetch.serverAddress == upstream.host)
        #expect(fetch.serverPort == upstream.port)
        #expect(fetch.route == "/api/accounts/{id}/balance")
        #expect(fetch.outcome == "miss")
        #expect(fetch.tier == "upstream")
        #expect(fetch.status == 200)
        #expect(fetch.errorType == nil)
        let graphQL = try #require(heard.ended().first { $0.part == "graphql" })
        #expect(graphQL.serverAddress == upstream.host)
        #expect(graphQL.route?.hasSuffix("/graphql") == true)
        #expect(graphQL.outcome == "miss")
        await hub.shutdown()
    }

    @Test("an uncached call is a bypass with no hit, and a 4xx answer is an error.type of its status")
    func bypassAndClientError() async throws {
        let heard = Heard()
        let (_, hub) = try await Self.hub("semantics-bypass", heard)
        let session = Self.alice(hub)
        _ = await session.rest.perform(with: StatusGET(code: 404))
        _ = await session.rest.perform(with: StatusGET(code: 404))

        #expect(heard.hits().isEmpty)
        let ended = heard.ended()
        #expect(ended.count == 2)
        #expect(ended.allSatisfy { $0.outcome == "bypass" && $0.status == 404 && $0.errorType == "404" })
        #expect(ended.allSatisfy { $0.route == "/api/status/{id}" })
        await hub.shutdown()
    }

    @Test("the Prometheus text is the metric families rendered, with snake_case reasons")
    func familiesAndText() async throws {
        let heard = Heard()
        let (_, hub) = try await Self.hub("semantics-families", heard)
        _ = try await Self.alice(hub).rest.perform(with: CachedGET(path: "/api/accounts", key: "accounts")).get()
        _ = await hub.endSession(id: "session-alice", reason: .sessionExpired)

        let families = hub.metricFamilies()
        #expect(hub.metricsText() == CacheMetricFamily.prometheusText(families))
        let ended = try #require(families.first { $0.name == "ucache_sessions_ended_total" })
        #expect(ended.kind == .counter)
        let expired = try #require(ended.samples.first { $0.labels == [.init("reason", "session_expired")] })
        #expect(expired.value == .int(1))
        for family in families {
            for sample in family.samples {
                for label in sample.labels {
                    #expect(label.value == CacheLabelCase.snake(label.value), "\(sample.name) \(label.value)")
                }
            }
        }
        await hub.shutdown()
    }

    @Test("an answer from the second level is one l2 hit, after a read that names Redis, its command and server")
    func secondLevelHit() async throws {
        let heard = Heard()
        let harness = try await SecondLevelHarness("semantics-l2", instrumentationOfB: heard)
        let request = SecondLevelGET(path: "/api/accounts", key: "accounts.list")
        _ = try await harness.session(harness.a, .alice).rest.perform(with: request).get()
        try await harness.waitForWrites(harness.a, 1)
        _ = try await harness.session(harness.b, .alice).rest.perform(with: request).get()

        #expect(heard.hits() == [CacheHit(part: .rest, tier: .l2, outcome: .hit)])
        let read = try #require(heard.ended().first { $0.tier == "l2" })
        let redis = try #require(URLComponents(string: harness.redisURL))
        #expect(read.databaseSystem == "redis")
        #expect(read.databaseOperation == "BATCH", "one server's read is three pipelined commands")
        #expect(read.serverAddress == redis.host)
        #expect(read.serverPort == (redis.port ?? 6379))
        #expect(read.outcome == "hit")
        #expect(read.errorType == nil)
        #expect(heard.ended().allSatisfy { $0.part != "rest" || $0.tier == "l2" }, "B made no upstream call")
        await harness.shutdown()
    }

    static func hub(_ label: String, _ heard: Heard) async throws -> (FixtureTenant, CacheHub) {
        let tenant = try await FixtureServer.tenant(label)
        var configuration = CacheHub.Configuration(
            restBaseURL: tenant.baseURL, graphQLEndpoint: tenant.graphqlURL, maintenance: .init(interval: nil))
        configuration.instrumentation = heard
        return (tenant, try CacheHub(configuration: configuration, settings: SettingsStore()))
    }

    static func alice(_ hub: CacheHub) -> CacheSession {
        hub.session(id: "session-alice", principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice"))
    }
}

/// The fixture's answer with a status of the caller's choosing, not cached.
private struct StatusGET: RequestType {
    typealias Response = AnyJSON
    var code: Int
    var path: String { "/api/status/\(code)" }
}

/// Keeps the attributes of every operation that ended and every hit reported.
final class Heard: CacheInstrumentation {
    private let state = Mutex<(ended: [CacheOperationAttributes], hits: [CacheHit])>(([], []))

    func start(_ operation: CacheOperation, attributes: CacheOperationAttributes) -> CacheOperationToken {
        CacheOperationToken(operation: operation)
    }

    func end(_ token: CacheOperationToken, attributes: CacheOperationAttributes) {
        state.withLock { $0.ended.append(attributes) }
    }

    func cacheDidServe(_ hit: CacheHit) {
        state.withLock { $0.hits.append(hit) }
    }

    func ended() -> [CacheOperationAttributes] { state.withLock { $0.ended } }
    func hits() -> [CacheHit] { state.withLock { $0.hits } }
}
