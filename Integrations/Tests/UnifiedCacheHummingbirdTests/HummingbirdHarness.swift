import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntegrationFixtures
import UnifiedCache
import UnifiedCacheHummingbird

/// A hub over a fixture tenant (a manual clock, optionally a second level) for a real Hummingbird app in live mode.
struct HummingbirdHarness {
    let tenant: FixtureTenant
    let clock = ManualCacheClock()
    let hub: CacheHub

    init(_ label: String, secondLevel: SecondLevelConfiguration? = nil, tenant: FixtureTenant? = nil) async throws {
        if let tenant {
            self.tenant = tenant
        } else {
            self.tenant = try await FixtureServer.tenant(label)
        }
        var configuration = CacheHub.Configuration(
            restBaseURL: self.tenant.baseURL, graphQLEndpoint: self.tenant.graphqlURL, maintenance: .init(interval: nil)
        )
        configuration.secondLevel = secondLevel
        configuration.instrumentation = CacheStatusInstrumentation()
        hub = try CacheHub(configuration: configuration, settings: SettingsStore(), clock: clock)
    }

    func application(_ router: Router<AppContext>) -> some ApplicationProtocol {
        Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    }
}

/// The fixture's `GET /api/accounts/101/balance` answer.
struct Balance: ResponseCodable {
    var accountId: String
    var balance: Double
}

extension TestClientProtocol {
    /// A GET as a fixture user (or anonymous).
    func get(_ uri: String, as user: FixtureTenant.User? = nil) async throws -> TestResponse {
        try await execute(uri: uri, method: .get, headers: Self.headers(user))
    }

    /// A POST as a fixture user (or anonymous).
    func post(_ uri: String, as user: FixtureTenant.User? = nil) async throws -> TestResponse {
        try await execute(uri: uri, method: .post, headers: Self.headers(user))
    }

    static func headers(_ user: FixtureTenant.User?) -> HTTPFields {
        guard let user else { return [:] }
        return [.authorization: user.authorization]
    }
}

extension TestResponse {
    /// The response's `Cache-Status`, nil without one.
    var cacheStatus: String? { headers[.cacheStatus] }

    var text: String { String(buffer: body) }

    func accounts() throws -> [Account] {
        try JSONDecoder().decode([Account].self, from: Data(text.utf8))
    }
}
