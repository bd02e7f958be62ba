import Foundation
import InMemoryTracing
import IntegrationFixtures
import Testing
import Tracing
import UnifiedCache
import UnifiedCacheTracing

@Suite("Tracing: the cache's spans on the app's trace")
struct TracingIntegrationTests {
    @Test("a REST miss is a client span under the request's span with OpenTelemetry's HTTP client attributes")
    func restFetchSpan() async throws {
        let tracer = InMemoryTracer()
        let harness = try await IntegrationHarness("trace-rest", instrumentation: CacheTracing(tracer: tracer))
        let session = harness.alice
        let request = tracer.startSpan("GET /dashboard", context: .topLevel, ofKind: .server)
        try await ServiceContext.withValue(request.context) {
            _ = try await session.rest.perform(with: IntegrationHarness.balance).get()
            _ = try await session.rest.perform(with: IntegrationHarness.balance).get()
        }
        request.end()

        let fetches = tracer.finishedSpans.filter { $0.operationName.hasPrefix("GET /api/") }
        #expect(fetches.count == 1, "the hit makes no upstream call")
        let fetch = try #require(fetches.first)
        #expect(fetch.operationName == "GET /api/accounts/{id}/balance")
        #expect(fetch.kind == .client)
        #expect(fetch.traceID == request.traceID)
        #expect(fetch.parentSpanID == request.spanID)
        #expect(fetch.attributes["http.request.method"]?.toSpanAttribute() == .string("GET"))
        #expect(fetch.attributes["url.template"]?.toSpanAttribute() == .string("/api/accounts/{id}/balance"))
        let upstream = try #require(URLComponents(string: harness.tenant.baseURL))
        #expect(fetch.attributes["server.address"]?.toSpanAttribute() == .string(try #require(upstream.host)))
        #expect(fetch.attributes["server.port"]?.toSpanAttribute() == .int64(Int64(try #require(upstream.port))))
        #expect(fetch.attributes["ucache.outcome"]?.toSpanAttribute() == .string("miss"))
        #expect(fetch.attributes["ucache.tier"]?.toSpanAttribute() == .string("upstream"))
        #expect(fetch.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(200))
        #expect(fetch.attributes["error.type"] == nil)
        #expect(fetch.status?.code != .error)
        var names: [String] = []
        // swift-format-ignore: ReplaceForEachWithForLoop
        fetch.attributes.forEach { name, _ in names.append(name) }
        #expect(
            names.sorted() == [
                "http.request.method", "http.response.status_code", "server.address", "server.port", "ucache.outcome",
                "ucache.part", "ucache.tier", "url.template",
            ])
    }

    @Test("a hit opens no span: it is one ucache.lookup event on the caller's span, with outcome, tier and part")
    func hitIsAnEvent() async throws {
        let tracer = InMemoryTracer()
        let harness = try await IntegrationHarness("trace-hit", instrumentation: CacheTracing(tracer: tracer))
        let session = harness.alice
        _ = try await session.rest.perform(with: IntegrationHarness.balance).get()
        let request = tracer.startSpan("GET /dashboard", context: .topLevel, ofKind: .server)
        try await ServiceContext.withValue(request.context) {
            _ = try await session.rest.perform(with: IntegrationHarness.balance).get()
        }
        request.end()
        // Outside a trace, a hit leaves nothing.
        _ = try await session.rest.perform(with: IntegrationHarness.balance).get()

        let spans = tracer.finishedSpans
        #expect(spans.count == 2, "the miss's fetch span and the request's span, none for the hits")
        let finished = try #require(spans.first { $0.operationName == "GET /dashboard" })
        #expect(finished.events.count == 1)
        let event = try #require(finished.events.first)
        #expect(event.name == "ucache.lookup")
        #expect(event.attributes["ucache.outcome"]?.toSpanAttribute() == .string("hit"))
        #expect(event.attributes["ucache.tier"]?.toSpanAttribute() == .string("l1"))
        #expect(event.attributes["ucache.part"]?.toSpanAttribute() == .string("rest"))
    }

    @Test("an upstream 4xx ends the client span in error with error.type the status, set once as an integer")
    func clientErrorSpan() async throws {
        let tracer = InMemoryTracer()
        let harness = try await IntegrationHarness("trace-404", instrumentation: CacheTracing(tracer: tracer))
        let result = await harness.alice.rest.perform(with: Status(code: 404))

        #expect(throws: (any Error).self) { try result.get() }
        let span = try #require(tracer.finishedSpans.first { $0.operationName == "GET /api/status/{id}" })
        #expect(span.status?.code == .error)
        #expect(span.attributes["http.response.status_code"]?.toSpanAttribute() == .int64(404))
        #expect(span.attributes["error.type"]?.toSpanAttribute() == .string("404"))
        #expect(span.attributes["ucache.outcome"]?.toSpanAttribute() == .string("bypass"))
    }

    @Test("a failed upstream call ends its span with an error status and the error's code")
    func failedFetchSpan() async throws {
        let tracer = InMemoryTracer()
        let harness = try await IntegrationHarness("trace-fail", instrumentation: CacheTracing(tracer: tracer))
        var configuration = harness.hub.configuration
        configuration.restBaseURL = "http://127.0.0.1:\(try UnusedPort.find())"
        let hub = try CacheHub(configuration: configuration, settings: SettingsStore())
        let session = hub.session(id: "s", principal: VerifiedPrincipal("alice"), credentials: .bearer("t"))

        let result = await session.rest.perform(with: IntegrationHarness.balance)

        #expect(throws: (any Error).self) { try result.get() }
        let span = try #require(tracer.finishedSpans.first { $0.operationName.hasPrefix("GET ") })
        #expect(span.status?.code == .error)
        #expect(span.attributes["error.type"]?.toSpanAttribute() == .string("connectFailed"))
        await hub.shutdown()
    }

    @Test("the decorator injects the fetch span's context into the upstream request, read in the caller's task")
    func contextReachesUpstream() async throws {
        let tracer = InMemoryTracer()
        let harness = try await IntegrationHarness(
            "trace-inject", instrumentation: CacheTracing(tracer: tracer),
            decorator: CacheTracing.requestDecorator(tracer: tracer))
        let session = harness.alice
        let request = tracer.startSpan("GET /dashboard", context: .topLevel, ofKind: .server)
        let echoed = try await ServiceContext.withValue(request.context) {
            try await session.rest.perform(with: Echo()).get()
        }
        request.end()

        let fetch = try #require(tracer.finishedSpans.first { $0.operationName == "GET /api/echo" })
        #expect(echoed.headers[InMemoryTracer.traceIDKey] == [request.traceID])
        #expect(echoed.headers[InMemoryTracer.spanIDKey] == [fetch.spanID])
    }

    @Test("outside a trace the decorator adds nothing")
    func noContextNoHeader() async throws {
        let tracer = InMemoryTracer()
        let harness = try await IntegrationHarness(
            "trace-none", decorator: CacheTracing.requestDecorator(tracer: tracer))
        let echoed = try await harness.alice.rest.perform(with: Echo()).get()
        #expect(echoed.headers[InMemoryTracer.traceIDKey] == nil)
        #expect(tracer.performedContextInjections.isEmpty)
    }

    @Test("GraphQL fetches and session endings have spans; no attribute carries an id, token or body")
    func everyOperationRedacted() async throws {
        let tracer = InMemoryTracer()
        let harness = try await IntegrationHarness("trace-all", instrumentation: CacheTracing(tracer: tracer))
        try await harness.exerciseEveryEventKind()

        let spans = tracer.finishedSpans
        let graphQL = try #require(spans.first { $0.operationName == "query UserProfile" })
        #expect(graphQL.attributes["graphql.operation.name"]?.toSpanAttribute() == .string("UserProfile"))
        #expect(graphQL.attributes["graphql.operation.type"]?.toSpanAttribute() == .string("query"))
        #expect(graphQL.attributes["http.request.method"]?.toSpanAttribute() == .string("POST"))
        // The endpoint's path as a route template (the tenant's id in it is one).
        let endpoint = CacheRouteTemplate.of(try #require(URLComponents(string: harness.tenant.graphqlURL)).path)
        #expect(endpoint.hasSuffix("/graphql"))
        #expect(graphQL.attributes["url.template"]?.toSpanAttribute() == .string(endpoint))
        #expect(graphQL.attributes["ucache.outcome"]?.toSpanAttribute() == .string("miss"))
        let ending = try #require(spans.first { $0.operationName == "ucache.session.end" })
        #expect(ending.attributes["ucache.reason"]?.toSpanAttribute() == .string("logout"))
        for span in spans {
            #expect(IntegrationHarness.revealsSecret(span.operationName) == nil)
            // SpanAttributes is no Sequence: forEach is its only walk.
            // swift-format-ignore: ReplaceForEachWithForLoop
            span.attributes.forEach { name, value in
                #expect(IntegrationHarness.revealsSecret("\(name)=\(value)") == nil, "\(span.operationName) \(name)")
            }
        }
    }
}

/// The fixture's answer with a status of the caller's choosing (not cached: no cache entry).
struct Status: RequestType {
    typealias Response = AnyJSON
    var code: Int
    var path: String { "/api/status/\(code)" }
}

/// The fixture's echo of the request it received: the headers it saw.
struct Echo: RequestType {
    struct Response: Decodable, Sendable {
        let headers: [String: [String]]

        private enum Keys: String, CodingKey { case headers }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: Keys.self)
            headers = try container.decode([String: OneOrMany].self, forKey: .headers).mapValues(\.values)
        }
    }

    /// A header's value: one string or a list of them.
    struct OneOrMany: Decodable, Sendable {
        let values: [String]

        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            if let one = try? container.decode(String.self) {
                values = [one]
            } else {
                values = try container.decode([String].self)
            }
        }
    }

    var path: String { "/api/echo" }
}
