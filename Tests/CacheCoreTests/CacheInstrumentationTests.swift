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

    @Test("attributes are named by OpenTelemetry's conventions, only those set")
    func namedValues() {
        let attributes = CacheOperationAttributes(part: "rest", method: "GET", route: "/api/x", status: 503)
        #expect(
            attributes.namedValues.map(\.name) == [
                "cache.part", "http.request.method", "url.template",
                "http.response.status_code",
            ])
    }
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
}

final class Log: Sendable {
    let entries = Mutex<[String]>([])
}
