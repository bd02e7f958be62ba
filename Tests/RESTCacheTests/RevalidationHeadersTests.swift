import FixtureSupport
import Foundation
import RESTCache
import Testing

@Suite("A 304 updates the stored caching headers (RFC 9111 §4.3.4)")
struct RevalidationHeadersTests {
    private struct Version: Decodable, Sendable, Equatable {
        var etag: String
    }

    /// The fixture's revalidation route: the 200 carries the first headers, a 304 the `then_` ones.
    private func request(_ query: [(String, String)], timeout: Timeout = .seconds(600)) -> RawRequest<Version> {
        RawRequest(
            path: "/api/revalidation",
            queryItems: query.map { QueryItem($0.0, $0.1) },
            cache: RequestCache(key: "revalidation", timeout: timeout)
        )
    }

    private func source(_ service: APIService, _ request: RawRequest<Version>) async throws -> ResponseSource {
        try await service.performWithSource(with: request).value().source
    }

    @Test("a 304 with a longer max-age gives the entry that lifetime, and its ETag becomes the validator")
    func longerMaxAgeAndNewETag() async throws {
        let harness = try await Harness("reval-maxage")
        let service = harness.service()
        let read = request([("etag", "v1"), ("max_age", "30"), ("then_etag", "v2"), ("then_max_age", "120")])
        _ = try await service.perform(with: read).value()
        harness.clock.advance(by: .seconds(31))
        #expect(try await service.performWithSource(with: read).value().wasRevalidated)

        harness.clock.advance(by: .seconds(100))  // past the first max-age, within the 304's
        #expect(try await source(service, read) == .cache)
        guard case .fresh(let entry) = harness.store.peek("revalidation", in: .session("alice")) else {
            Issue.record("the revalidated entry should be fresh")
            return
        }
        #expect(entry.metadata.validators.etag == "\"v2\"")
        #expect(entry.metadata.timeout == .seconds(120))

        harness.clock.advance(by: .seconds(21))  // past the 304's max-age
        #expect(try await service.performWithSource(with: read).value().wasRevalidated)
        #expect(try await harness.counters().statuses["304"] == 2)
    }

    @Test("the 304's lifetime is capped by the timeout the request asks for")
    func cappedByTheRequestTimeout() async throws {
        let harness = try await Harness("reval-cap")
        let service = harness.service()
        let read = request(
            [("etag", "v1"), ("max_age", "30"), ("then_etag", "v2"), ("then_max_age", "120")],
            timeout: .seconds(45)
        )
        _ = try await service.perform(with: read).value()
        harness.clock.advance(by: .seconds(31))
        #expect(try await service.performWithSource(with: read).value().wasRevalidated)
        harness.clock.advance(by: .seconds(44))
        #expect(try await source(service, read) == .cache)
        harness.clock.advance(by: .seconds(2))
        #expect(try await source(service, read) == .network)
        #expect(try await harness.counters().route("GET /api/revalidation") == 3)
    }

    @Test("a 304 with a shorter max-age shortens the lifetime")
    func shorterMaxAge() async throws {
        let harness = try await Harness("reval-shorter")
        let service = harness.service()
        let read = request([("etag", "v1"), ("max_age", "60"), ("then_etag", "v1"), ("then_max_age", "5")])
        _ = try await service.perform(with: read).value()
        harness.clock.advance(by: .seconds(61))
        #expect(try await service.performWithSource(with: read).value().wasRevalidated)
        harness.clock.advance(by: .seconds(6))
        #expect(try await source(service, read) == .network)
    }

    @Test("Expires sets the lifetime when no max-age is given, on the 200 and on the 304")
    func expiresSetsTheLifetime() async throws {
        let harness = try await Harness("reval-expires")
        let service = harness.service()
        let read = request([("etag", "v1"), ("expires_in", "30"), ("then_etag", "v2"), ("then_expires_in", "300")])
        _ = try await service.perform(with: read).value()
        harness.clock.advance(by: .seconds(28))  // Expires and Date are whole seconds: 29 or 30 s apart
        #expect(try await source(service, read) == .cache)
        harness.clock.advance(by: .seconds(3))  // past Expires of the 200
        #expect(try await service.performWithSource(with: read).value().wasRevalidated)
        harness.clock.advance(by: .seconds(200))  // within Expires of the 304
        #expect(try await source(service, read) == .cache)
        #expect(try await harness.counters().route("GET /api/revalidation") == 2)
    }

    @Test("a 304 without caching headers keeps the entry's lifetime and validators")
    func bare304KeepsWhatWasStored() async throws {
        let harness = try await Harness("reval-bare")
        let service = harness.service()
        let read = request([("etag", "v1"), ("max_age", "30")])
        _ = try await service.perform(with: read).value()
        harness.clock.advance(by: .seconds(31))
        #expect(try await service.performWithSource(with: read).value().wasRevalidated)
        guard case .fresh(let entry) = harness.store.peek("revalidation", in: .session("alice")) else {
            Issue.record("the revalidated entry should be fresh")
            return
        }
        #expect(entry.metadata.validators.etag == "\"v1\"")
        harness.clock.advance(by: .seconds(29))
        #expect(try await source(service, read) == .cache)
        harness.clock.advance(by: .seconds(2))
        #expect(try await service.performWithSource(with: read).value().wasRevalidated)
    }

    @Test("an invalid Expires means already expired")
    func invalidExpiresIsInThePast() async throws {
        let harness = try await Harness("reval-invalid")
        let service = harness.service()
        let echo = RawRequest<EmptyResponse>(
            path: "/api/echo",
            queryItems: [QueryItem("set_header", "Expires:0")],
            cache: RequestCache(key: "echo.expires", timeout: .seconds(600))
        )
        _ = try await service.perform(with: echo).value()
        harness.clock.advance(by: .seconds(1))
        #expect(try await service.performWithSource(with: echo).value().source == .network)
    }
}
