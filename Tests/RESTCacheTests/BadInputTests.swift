import FixtureSupport
import Foundation
import RESTCache
import Testing

@Suite("Bad input gets a typed error and leaves the cache untouched")
struct BadInputTests {
    @Test("a body that is not JSON is a decoding error; the cached entry stays")
    func malformedBody() async throws {
        let harness = try await Harness("badjson")
        let service = harness.service()
        let cached = try await service.perform(with: AccountsRequest()).value()
        try await harness.tenant.inject(.malformed, route: "GET /api/accounts")
        let result = await service.perform(with: AccountsRequest(cachePolicy: .networkOnly))
        guard case .failure(.decoding(let error)) = result else {
            Issue.record("expected a decoding error, got \(result)")
            return
        }
        #expect(error.code == .decodingFailed)
        #expect(try await service.perform(with: AccountsRequest(cachePolicy: .cacheOnly)).value() == cached)
    }

    @Test("a body of the wrong shape is a decoding error naming the place, never the body")
    func wrongType() async throws {
        let harness = try await Harness("wrongtype")
        let service = harness.service()
        let request = RawRequest<[Payee]>(path: "/api/profile", cache: RequestCache(key: "x.profile"))
        let result = await service.perform(with: request)
        guard case .failure(.decoding(let error)) = result else {
            Issue.record("expected a decoding error, got \(result)")
            return
        }
        #expect(!String(describing: error).contains("alice@example.com"))
        #expect(harness.store.entryCount(in: .session("alice")) == 0)
    }

    @Test("an oversize answer is a network error with code tooLarge; nothing is stored")
    func oversize() async throws {
        let harness = try await Harness("oversize")
        let small = try CurlHTTPClient(configuration: .init(maximumResponseSize: 10_000))
        let service = APIService(
            baseURL: harness.tenant.baseURL,
            client: small,
            cache: CacheManager(store: harness.store, scope: .session("alice")),
            credentials: .bearer("token-alice"),
            clock: harness.clock
        )
        try await harness.tenant.inject(.oversize(bytes: 50_000), route: "GET /api/accounts")
        guard case .failure(.network(let error)) = await service.perform(with: AccountsRequest()) else {
            Issue.record("expected a network error")
            return
        }
        #expect(error.code == .tooLarge)
        #expect(harness.store.entryCount(in: .session("alice")) == 0)
    }

    @Test("an invalid path is refused before any I/O")
    func invalidPath() async throws {
        let harness = try await Harness("badpath")
        let service = harness.service()
        for path in ["api/accounts", "/api/accounts?x=1", "/api/ac counts"] {
            guard
                case .failure(.invalidRequest(let error)) = await service.perform(
                    with: RawRequest<[Account]>(path: path))
            else {
                Issue.record("expected invalidRequest for \(path)")
                continue
            }
            #expect(error.code == .invalidRequest)
        }
        #expect(try await harness.counters().requests == 0)
    }

    @Test("query items are percent-encoded, so values cannot smuggle parameters")
    func queryEncoding() async throws {
        let harness = try await Harness("query")
        let service = harness.service()
        struct Echo: Decodable, Sendable { var query: [String: [String]] }
        let request = RawRequest<Echo>(path: "/api/echo", queryItems: [QueryItem("a", "1&b=2 +é")])
        let echo = try await service.perform(with: request).value()
        #expect(echo.query == ["a": ["1&b=2 +é"]])
    }
}
