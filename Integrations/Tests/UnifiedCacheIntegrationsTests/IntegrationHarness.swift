import Foundation
import IntegrationFixtures
import UnifiedCache

/// A hub over a fixture tenant with the integrations under test installed, and the secret values the root package's
/// redaction tests use: none may reach a log line, a metric label or a span attribute.
struct IntegrationHarness {
    let tenant: FixtureTenant
    let hub: CacheHub

    /// Session ids, tokens, account ids, emails and a balance the tests put through the cache.
    static let secrets = ["session-alice", "token-alice", "1017", "tok_9f8e7d6c5b4a", "alice@example.com", "250000"]

    init(
        _ label: String, observer: (any CacheEventObserver)? = nil, instrumentation: (any CacheInstrumentation)? = nil,
        decorator: CurlHTTPClient.RequestDecorator? = nil
    ) async throws {
        tenant = try await FixtureServer.tenant(label)
        var configuration = CacheHub.Configuration(
            restBaseURL: tenant.baseURL, graphQLEndpoint: tenant.graphqlURL, maintenance: .init(interval: nil))
        configuration.instrumentation = instrumentation
        configuration.transport.requestDecorator = decorator
        hub = try CacheHub(configuration: configuration, settings: SettingsStore(), observer: observer)
    }

    /// Alice's session, under an id and token that are secrets.
    var alice: CacheSession {
        hub.session(id: "session-alice", principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice"))
    }

    /// One of each: a REST miss with its upstream call and insert, a hit on it, a GraphQL fetch, a clear by account,
    /// and the session's logout.
    func exerciseEveryEventKind() async throws {
        let session = alice
        _ = try await session.rest.perform(with: Self.balance).get()
        _ = try await session.rest.perform(with: Self.balance).get()
        _ = try await session.graphQL.fetch(operation: Self.profile).get()
        _ = await session.cacheManager.clearCache(forAccountId: "1017")
        _ = await hub.endSession(id: "session-alice", reason: .logout)
    }

    /// A balance read whose path, key and account carry secrets.
    static let balance = CachedGET(
        path: "/api/accounts/101/balance", key: "balances.tok_9f8e7d6c5b4a", accounts: ["1017"])
    static let profile = UntypedGraphQLOperation(
        document: "query UserProfile { profile { id displayName } }", operationName: "UserProfile")

    /// Whether `text` holds any of ``secrets``.
    static func revealsSecret(_ text: String) -> String? {
        secrets.first { text.contains($0) }
    }
}

/// Any route decoded as JSON we don't look into.
struct AnyJSON: Decodable, Sendable {
    init(from decoder: any Decoder) throws {}
}

/// A cached GET of a fixture route under a key of the caller's choosing.
struct CachedGET: RequestType {
    typealias Response = AnyJSON
    var path: String
    var key: String
    var accounts: Set<String> = []
    var cache: RequestCache? { RequestCache(key: key, timeout: .seconds(600), accountIds: accounts) }
}
