import Foundation
import IntegrationFixtures
import UnifiedCache
import UnifiedCacheVapor
import Vapor
import VaporTesting

/// A hub over a fixture tenant (a manual clock) and a Vapor app whose tests go over real HTTP (VaporTesting's
/// running mode on a free loopback port).
struct VaporHarness {
    let tenant: FixtureTenant
    let clock = ManualCacheClock()
    let hub: CacheHub

    init(
        _ label: String, instrumentation: (any CacheInstrumentation)? = nil, settings: SettingsStore? = nil
    ) async throws {
        tenant = try await FixtureServer.tenant(label)
        var configuration = CacheHub.Configuration(
            restBaseURL: tenant.baseURL, graphQLEndpoint: tenant.graphqlURL, maintenance: .init(interval: nil))
        configuration.instrumentation = CacheInstrumentationGroup(
            [CacheStatusInstrumentation()] + (instrumentation.map { [$0] } ?? []))
        hub = try CacheHub(configuration: configuration, settings: settings ?? SettingsStore(), clock: clock)
    }

    /// A `.testing` app configured by `configure`, handed to `body`, then shut down (its lifecycle handlers run).
    func withApp(
        _ configure: (Application) throws -> Void,
        _ body: (Application, any TestingApplicationTester) async throws -> Void
    ) async throws {
        let app = try await Application.make(.testing)
        do {
            try configure(app)
            try await body(app, try app.testing(method: .running(hostname: "127.0.0.1", port: 0)))
        } catch {
            try? await app.asyncShutdown()
            throw error
        }
        try await app.asyncShutdown()
    }
}

extension TestingApplicationTester {
    /// A GET as a fixture user (or anonymous).
    func get(_ path: String, as user: FixtureTenant.User? = nil) async throws -> TestingHTTPResponse {
        try await sendRequest(.GET, path, headers: Self.headers(user))
    }

    /// A POST as a fixture user (or anonymous).
    func post(_ path: String, as user: FixtureTenant.User? = nil) async throws -> TestingHTTPResponse {
        try await sendRequest(.POST, path, headers: Self.headers(user))
    }

    static func headers(_ user: FixtureTenant.User?) -> HTTPHeaders {
        guard let user else { return [:] }
        return ["Authorization": user.authorization]
    }
}

extension TestingHTTPResponse {
    /// The response's `Cache-Status`, nil without one.
    var cacheStatus: String? { headers.first(name: CacheStatus.fieldName) }

    func accounts() throws -> [Account] {
        try JSONDecoder().decode([Account].self, from: Data(body.readableBytesView))
    }
}
