import IntegrationFixtures
import Logging
import RedisReplication
import ServiceLifecycle
import Testing
import UnifiedCache
import UnifiedCacheServiceLifecycle

@Suite("ServiceLifecycle: the hub in the app's ServiceGroup")
struct ServiceLifecycleTests {
    static let logger = Logger(label: "test")

    static func group(_ service: CacheHubService) -> ServiceGroup {
        ServiceGroup(configuration: .init(services: [.init(service: service)], logger: logger))
    }

    @Test("graceful shutdown delivers the answers in flight, then shuts the hub down")
    func drainsRequestsInFlight() async throws {
        let inFlight = CacheRequestsInFlight()
        let harness = try await IntegrationHarness("lifecycle-drain", instrumentation: inFlight)
        let session = harness.alice
        try await harness.tenant.holdAnswers(route: "GET /api/echo")
        let group = Self.group(
            CacheHubService(
                hub: harness.hub, requestsInFlight: inFlight, configuration: .init(drainDeadline: .seconds(60)),
                logger: Self.logger))
        let running = Task { try await group.run() }
        let read = Task { await session.rest.perform(with: Echo()) }
        try await waitUntil { inFlight.current == 1 }

        await group.triggerGracefulShutdown()
        try await waitUntil { try await harness.tenant.counters().route("GET /api/echo") == 1 }
        #expect(inFlight.current == 1, "the hub waits for the held answer")
        try await harness.tenant.releaseHeldAnswers()

        let delivered = await read.value
        #expect(throws: Never.self) { try delivered.get() }
        try await running.value
        let afterShutdown = await session.rest.perform(with: Echo())
        #expect(throws: (any Error).self) { try afterShutdown.get() }
    }

    @Test("past the drain deadline the hub shuts down anyway and the call in flight fails")
    func drainDeadline() async throws {
        let inFlight = CacheRequestsInFlight()
        let harness = try await IntegrationHarness("lifecycle-deadline", instrumentation: inFlight)
        let session = harness.alice
        try await harness.tenant.holdAnswers(route: "GET /api/echo")
        let group = Self.group(
            CacheHubService(
                hub: harness.hub, requestsInFlight: inFlight, configuration: .init(drainDeadline: .milliseconds(50)),
                logger: Self.logger))
        let running = Task { try await group.run() }
        let read = Task { await session.rest.perform(with: Echo()) }
        try await waitUntil { inFlight.current == 1 }

        await group.triggerGracefulShutdown()
        try await running.value
        let result = await read.value
        try await harness.tenant.releaseHeldAnswers()
        #expect(throws: (any Error).self) { try result.get() }
    }

    @Test("a replication link refused for its credentials ends the group with a typed error")
    func fatalConfiguration() async throws {
        let server = try await RedisTestServer.start(password: "fleet-password-1")
        defer { server.terminate() }
        var redis = try RedisReplicationConfiguration(url: server.url)
        redis.password = "not-the-password"
        redis.initialBackoff = .milliseconds(20)
        redis.maximumBackoff = .milliseconds(200)
        let tenant = try await FixtureServer.tenant("lifecycle-fatal")
        var configuration = CacheHub.Configuration(
            restBaseURL: tenant.baseURL, graphQLEndpoint: tenant.graphqlURL, maintenance: .init(interval: nil))
        configuration.replication = ReplicationConfiguration(
            transport: RedisReplicationTransport(configuration: redis),
            secret: try ReplicationSecret(Array("a-fleet-secret-of-32-bytes-or-more".utf8)))
        let hub = try CacheHub(configuration: configuration, settings: SettingsStore())
        let group = Self.group(
            CacheHubService(hub: hub, configuration: .init(checkInterval: .milliseconds(20)), logger: Self.logger))

        await #expect(throws: CacheHubServiceError.self) { try await group.run() }
    }
}
