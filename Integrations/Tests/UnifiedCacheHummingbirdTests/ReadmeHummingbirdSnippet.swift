// README.md's Hummingbird snippet, verbatim from its `import` line to its last brace: compiled here, run by
// ReadmeSnippetTests against the fixture, and compared with README.md so the two cannot drift apart.
import Hummingbird
import UnifiedCache
import UnifiedCacheHummingbird

struct Account: ResponseCodable {
    var id: String
    var name: String
}

struct AccountsRequest: RequestType {
    typealias Response = [Account]
    var path: String { "/api/accounts" }
    var cache: RequestCache? { RequestCache(key: "accounts.list", timeout: .seconds(300)) }
}

struct AppContext: CacheRequestContext {  // the request context carries the user's session
    var coreContext: CoreRequestContextStorage
    var cache = CacheRequestState()
    init(source: Source) { coreContext = .init(source: source) }
}

func buildRouter(hub: CacheHub, upstream: String) -> Router<AppContext> {
    // Who a bearer token belongs to, asked of the upstream once per token (or pass your authenticator's closure).
    let verifier = UpstreamTokenVerifier(configuration: .init(url: upstream + "/api/profile"), client: hub.client)
    let router = Router(context: AppContext.self)
    router.add(middleware: CacheSessionMiddleware(hub: hub, verifier: verifier))
    router.get("/me/accounts") { _, context -> [Account] in
        try await context.cache.response(for: AccountsRequest())  // Cache-Status: ucache-l1; hit
    }
    router.post("/logout") { _, context -> HTTPResponse.Status in
        try await context.cache.endSession()  // everything of the user, on every replica
        return .noContent
    }
    return router
}

func serve(upstream: String) async throws {
    let hub = try CacheHub(
        configuration: .init(restBaseURL: upstream, graphQLEndpoint: upstream + "/graphql"), settings: SettingsStore())
    try await Application(router: buildRouter(hub: hub, upstream: upstream)).runService()
    await hub.shutdown()
}
