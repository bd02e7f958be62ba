// README.md's Vapor snippet, verbatim from its `import` line to its last brace: compiled here, run by
// ReadmeVaporSnippetTests against the fixture, and compared with README.md so the two cannot drift apart.
import UnifiedCache
import UnifiedCacheVapor
import Vapor

struct Account: Content {
    var id: String
    var name: String
}

struct AccountsRequest: RequestType {
    typealias Response = [Account]
    var path: String { "/api/accounts" }
    var cache: RequestCache? { RequestCache(key: "accounts.list", timeout: .seconds(300)) }
}

func configure(_ app: Application, upstream: String) throws {
    let hub = try CacheHub(
        configuration: .init(restBaseURL: upstream, graphQLEndpoint: upstream + "/graphql"), settings: SettingsStore())
    app.lifecycle.use(CacheHubLifecycle(hub: hub))  // drains and shuts the hub down with the app
    routes(app, hub: hub, upstream: upstream)
}

func routes(_ app: Application, hub: CacheHub, upstream: String) {
    // Who a bearer token belongs to, asked of the upstream once per token (or use your authenticator's user).
    let verifier = UpstreamTokenVerifier(configuration: .init(url: upstream + "/api/profile"), client: hub.client)
    let cached = app.grouped(CacheSessionMiddleware(hub: hub, verifier: verifier))
    cached.get("me", "accounts") { req async throws -> [Account] in
        try await req.unifiedCache.response(for: AccountsRequest())  // Cache-Status: ucache-l1; hit
    }
    cached.post("logout") { req async throws -> HTTPStatus in
        try await req.unifiedCache.endSession()  // everything of the user, on every replica
        return .noContent
    }
}
