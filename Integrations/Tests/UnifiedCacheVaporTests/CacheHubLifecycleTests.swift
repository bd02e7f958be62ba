import IntegrationFixtures
import Testing
import UnifiedCache
import UnifiedCacheVapor
import Vapor
import VaporTesting

/// The fixture's echo route: an uncached read that can be held in flight (its body is not read).
private struct Echo: RequestType {
    struct Response: Decodable, Sendable {}
    var path: String { "/api/echo" }
}

@Suite("Vapor's lifecycle handler starts the hub's housekeeping with the app and drains it at shutdown")
struct CacheHubLifecycleTests {
    @Test("at boot the handler runs the hub's maintenance: an idle session ends without anyone asking")
    func bootStartsMaintenance() async throws {
        let settings = try SettingsStore(settings: CacheSettings(sessions: .init(idleTimeoutSeconds: 60)))
        let harness = try await VaporHarness("vapor-boot", settings: settings)
        let configure: (Application) throws -> Void = { app in
            app.lifecycle.use(CacheHubLifecycle(hub: harness.hub, maintenanceInterval: .milliseconds(20)))
            routes(app, hub: harness.hub, upstream: harness.tenant.baseURL)
        }
        try await harness.withApp(configure) { _, client in
            #expect(try await client.get("/me/accounts", as: .alice).status == .ok)
            #expect(harness.hub.existingSession(principal: VerifiedPrincipal("alice")) != nil)
            harness.clock.advance(by: .seconds(61))
            try await waitUntil { harness.hub.existingSession(principal: VerifiedPrincipal("alice")) == nil }
        }
    }

    @Test("app shutdown delivers the upstream answers in flight, then shuts the hub down")
    func shutdownDrains() async throws {
        let inFlight = CacheRequestsInFlight()
        let harness = try await VaporHarness("vapor-drain", instrumentation: inFlight)
        let app = try await Application.make(.testing)
        app.lifecycle.use(CacheHubLifecycle(hub: harness.hub, requestsInFlight: inFlight, drainDeadline: .seconds(60)))
        try await app.asyncBoot()
        let session = harness.hub.session(principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice"))
        try await harness.tenant.holdAnswers(route: "GET /api/echo")
        let read = Task { await session.rest.perform(with: Echo()) }
        try await waitUntil { inFlight.current == 1 }

        let shutdown = Task { try await app.asyncShutdown() }
        try await waitUntil { try await harness.tenant.counters().route("GET /api/echo") == 1 }
        #expect(inFlight.current == 1, "the handler waits for the held answer")
        try await harness.tenant.releaseHeldAnswers()

        let delivered = await read.value
        #expect(throws: Never.self) { try delivered.get() }
        try await shutdown.value
        let afterShutdown = await session.rest.perform(with: Echo())
        #expect(throws: (any Error).self) { try afterShutdown.get() }
    }

    @Test("past the drain deadline the hub shuts down anyway and the call in flight fails")
    func drainDeadline() async throws {
        let inFlight = CacheRequestsInFlight()
        let harness = try await VaporHarness("vapor-deadline", instrumentation: inFlight)
        let app = try await Application.make(.testing)
        app.lifecycle.use(
            CacheHubLifecycle(hub: harness.hub, requestsInFlight: inFlight, drainDeadline: .milliseconds(50)))
        try await app.asyncBoot()
        let session = harness.hub.session(principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice"))
        try await harness.tenant.holdAnswers(route: "GET /api/echo")
        let read = Task { await session.rest.perform(with: Echo()) }
        try await waitUntil { inFlight.current == 1 }

        try await app.asyncShutdown()
        let result = await read.value
        try await harness.tenant.releaseHeldAnswers()
        #expect(throws: (any Error).self) { try result.get() }
    }
}
