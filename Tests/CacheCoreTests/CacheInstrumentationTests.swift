import CacheCore
import Synchronization
import Testing

@Suite("Instrumentation: route templates and groups")
struct CacheInstrumentationTests {
    @Test("route templates keep words and replace ids, tokens, emails and long segments by {id}")
    func routeTemplates() {
        #expect(CacheRouteTemplate.of("/api/accounts/101/balance") == "/api/accounts/{id}/balance")
        #expect(CacheRouteTemplate.of("/api/accounts/tok_9f8e7d6c5b4a") == "/api/accounts/{id}")
        #expect(CacheRouteTemplate.of("/api/users/alice@example.com/profile") == "/api/users/{id}/profile")
        #expect(CacheRouteTemplate.of("/api/cards/ABCDEFGH") == "/api/cards/{id}")
        #expect(CacheRouteTemplate.of("/api/search/averyveryverylongwordthatisnoroute") == "/api/search/{id}")
        #expect(CacheRouteTemplate.of("/api/payees?account=101&token=x") == "/api/payees")
        #expect(CacheRouteTemplate.of("/api/me") == "/api/me")
        #expect(CacheRouteTemplate.of("") == "/")
    }

    @Test("a group starts and ends every member with its own token, in order")
    func groupFansOut() async {
        let log = Log()
        let group = CacheInstrumentationGroup([Recorder(name: "a", log: log), Recorder(name: "b", log: log)])
        let token = group.start(.restFetch, attributes: .init(method: "GET"))
        let answer = await group.withCurrent(token) { 42 }
        group.end(token, attributes: .init(method: "GET", status: 200))

        #expect(answer == 42)
        #expect(
            log.entries.withLock { $0 } == [
                "a start rest.fetch", "b start rest.fetch", "a current", "b current", "a end a 200", "b end b 200",
            ])
    }

    @Test("attributes are named by OpenTelemetry's conventions or ucache.*, only those set, integers as integers")
    func namedValues() {
        var attributes = CacheOperationAttributes(
            part: "rest", method: "GET", route: "/api/x", outcome: "miss", tier: "upstream", status: 503)
        attributes.setServer(CacheServerAddress(url: "https://api.example.com/base"))
        let named = attributes.namedValues
        #expect(
            named.map(\.name) == [
                "ucache.part", "http.request.method", "url.template", "server.address", "server.port",
                "ucache.outcome", "ucache.tier", "http.response.status_code", "error.type",
            ])
        #expect(named.first { $0.name == "http.response.status_code" }?.value == .int(503))
        #expect(named.first { $0.name == "server.port" }?.value == .int(443))
        #expect(named.first { $0.name == "error.type" }?.value == .string("503"))
    }

    @Test("error.type is the failure's code, else a status of 400 or more; a success has none")
    func errorType() {
        #expect(CacheOperationAttributes(status: 200).errorType == nil)
        #expect(CacheOperationAttributes(status: 304).errorType == nil)
        #expect(CacheOperationAttributes(status: 404).errorType == "404")
        #expect(CacheOperationAttributes(status: 500, failure: "timedOut").errorType == "timedOut")
        #expect(CacheOperationAttributes(failure: "connectFailed").errorType == "connectFailed")
    }

    @Test("a store's description becomes db.system.name, db.operation.name and the server; an unknown one sets none")
    func backendAttributes() {
        var attributes = CacheOperationAttributes()
        attributes.setBackend(
            CacheBackendDescription(
                system: "redis", operationName: "EVALSHA", serverAddress: "10.0.0.5", serverPort: 6380))
        #expect(
            attributes.namedValues.map(\.name) == [
                "db.system.name", "db.operation.name", "server.address", "server.port",
            ])
        var unknown = CacheOperationAttributes()
        unknown.setBackend(.unknown)
        #expect(unknown.namedValues.isEmpty)
    }

    @Test("a URL's host and port, the scheme's default port, never its user information or query")
    func serverAddress() {
        let plain = CacheServerAddress(url: "http://127.0.0.1:8080/t/abc/api?x=1")
        #expect(plain == CacheServerAddress(host: "127.0.0.1", port: 8080, path: "/t/abc/api"))
        #expect(CacheServerAddress(url: "https://user:secret@API.example.com")?.host == "api.example.com")
        #expect(CacheServerAddress(url: "https://api.example.com")?.port == 443)
        #expect(CacheServerAddress(url: "http://api.example.com/graphql#x")?.path == "/graphql")
        #expect(
            CacheServerAddress(url: "http://[::1]:9000/x") == CacheServerAddress(host: "::1", port: 9000, path: "/x"))
        #expect(CacheServerAddress(url: "redis://cache:6379")?.port == 6379)
        #expect(CacheServerAddress(url: "unix:///var/run/x") == nil)
        #expect(CacheServerAddress(url: "not a url") == nil)
    }

    @Test("label values in snake_case; already snake_case values are returned as they are")
    func snakeCase() {
        #expect(CacheLabelCase.snake("sessionExpired") == "session_expired")
        #expect(CacheLabelCase.snake("predatesSession") == "predates_session")
        #expect(CacheLabelCase.snake("logout") == "logout")
        #expect(CacheLabelCase.snake("dropped_writes") == "dropped_writes")
    }

    @Test("a group passes every hit to each member in order; an instrumentation that ignores hits needs no code")
    func groupForwardsHits() {
        let log = Log()
        let hit = CacheHit(part: .rest, tier: .l1, outcome: .hit)
        let group = CacheInstrumentationGroup([
            Recorder(name: "a", log: log), Silent(), Recorder(name: "b", log: log),
        ])
        group.cacheDidServe(hit)
        Silent().cacheDidServe(CacheHit(part: .graphql, tier: .l2, outcome: .stale))
        #expect(log.entries.withLock { $0 } == ["a served rest l1 hit", "b served rest l1 hit"])
    }
}

/// Hears operations, not hits: the default `cacheDidServe` does nothing.
struct Silent: CacheInstrumentation {
    func start(_ operation: CacheOperation, attributes: CacheOperationAttributes) -> CacheOperationToken {
        CacheOperationToken(operation: operation)
    }

    func end(_ token: CacheOperationToken, attributes: CacheOperationAttributes) {}
}

/// Records what it hears.
struct Recorder: CacheInstrumentation {
    let name: String
    let log: Log

    func start(_ operation: CacheOperation, attributes: CacheOperationAttributes) -> CacheOperationToken {
        log.entries.withLock { $0.append("\(name) start \(operation.rawValue)") }
        return CacheOperationToken(operation: operation, state: name)
    }

    func end(_ token: CacheOperationToken, attributes: CacheOperationAttributes) {
        log.entries.withLock { $0.append("\(name) end \(token.state as? String ?? "?") \(attributes.status ?? 0)") }
    }

    func withCurrent<Result>(_ token: CacheOperationToken, _ body: () async -> Result) async -> Result {
        log.entries.withLock { $0.append("\(name) current") }
        return await body()
    }

    func cacheDidServe(_ hit: CacheHit) {
        log.entries.withLock {
            $0.append("\(name) served \(hit.part.rawValue) \(hit.tier.rawValue) \(hit.outcome.rawValue)")
        }
    }
}

final class Log: Sendable {
    let entries = Mutex<[String]>([])
}
