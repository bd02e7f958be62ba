import CurlHTTP
import FixtureSupport
import Foundation
import Testing

/// The fixture's `dropReused` fault reads a request that arrived on a reused keep-alive connection, then closes the
/// connection without answering: the case where libcurl resends a request on its own.
@Suite("A request whose reused connection died is resent once only when that is safe")
struct ResendTests {
    private let body = Data(#"{"amount":5}"#.utf8)

    /// A client whose one keep-alive connection to the tenant is open and idle, and a drop for `route`'s next reuse.
    private func clientWithIdleConnection(dropping route: String, count: Int = 1) async throws -> (
        CurlHTTPClient, FixtureTenant
    ) {
        let tenant = try await FixtureServer.tenant("resend")
        try await tenant.inject(.dropReused, route: route, count: count)
        let client = try CurlHTTPClient()
        let first = try await client.execute(.init(url: tenant.url("/api/echo?warm=1")))
        #expect(first.timings.newConnections == 1)
        return (client, tenant)
    }

    @Test("a POST is sent once and fails with notRetried, saying it may have reached the server")
    func postIsNotResent() async throws {
        let (client, tenant) = try await clientWithIdleConnection(dropping: "POST /api/echo")
        let error = await #expect(throws: CurlHTTPError.self) {
            _ = try await client.execute(.init(method: .post, url: tenant.url("/api/echo"), body: body))
        }
        #expect(error?.code == .notRetried)
        #expect(error?.message.contains("may have reached the server") == true)
        #expect(try await tenant.counters().route("POST /api/echo") == 1)
    }

    @Test("a PATCH is not resent either")
    func patchIsNotResent() async throws {
        let (client, tenant) = try await clientWithIdleConnection(dropping: "PATCH /api/echo")
        let error = await #expect(throws: CurlHTTPError.self) {
            _ = try await client.execute(.init(method: .patch, url: tenant.url("/api/echo"), body: body))
        }
        #expect(error?.code == .notRetried)
        #expect(try await tenant.counters().route("PATCH /api/echo") == 1)
    }

    @Test("a GET is resent once on a new connection and succeeds")
    func getIsResentOnce() async throws {
        let (client, tenant) = try await clientWithIdleConnection(dropping: "GET /api/echo")
        let response = try await client.execute(.init(url: tenant.url("/api/echo?second=1")))
        #expect(response.status == 200)
        #expect(response.timings.newConnections == 1)
        #expect(try await tenant.counters().route("GET /api/echo") == 3)  // warm-up, dropped, resent
    }

    @Test("a POST carrying an Idempotency-Key header is resent once and succeeds")
    func postWithIdempotencyKeyIsResent() async throws {
        let (client, tenant) = try await clientWithIdleConnection(dropping: "POST /api/echo")
        let response = try await client.execute(
            .init(method: .post, url: tenant.url("/api/echo"), headers: ["Idempotency-Key": "pay-42"], body: body))
        #expect(response.status == 200)
        #expect(try await tenant.counters().route("POST /api/echo") == 2)
    }

    @Test("a POST marked idempotent is resent once; a GET marked non-idempotent is not")
    func theCallerDecides() async throws {
        let (client, tenant) = try await clientWithIdleConnection(dropping: "POST /api/echo")
        let post = try await client.execute(
            .init(method: .post, url: tenant.url("/api/echo"), body: body, isIdempotent: true))
        #expect(post.status == 200)

        try await tenant.inject(.dropReused, route: "GET /api/echo")
        let error = await #expect(throws: CurlHTTPError.self) {
            _ = try await client.execute(.init(url: tenant.url("/api/echo?marked=1"), isIdempotent: false))
        }
        #expect(error?.code == .notRetried)
        #expect(try await tenant.counters().route("GET /api/echo") == 2)  // warm-up, dropped
    }

    @Test("a GET is resent at most once: when the resend dies too, it fails with connectionClosed")
    func getIsResentOnlyOnce() async throws {
        let tenant = try await FixtureServer.tenant("resendonce")
        // Without HTTP/2 (PIPEWAIT), a second request does not wait to share the first one's connection.
        let client = try CurlHTTPClient(configuration: .init(enableHTTP2: false))
        // Two idle keep-alive connections: two overlapping requests open them.
        try await tenant.holdAnswers(route: "GET /api/echo")
        async let first = client.execute(.init(url: tenant.url("/api/echo?a=1")))
        async let second = client.execute(.init(url: tenant.url("/api/echo?a=2")))
        try await waitUntil { try await tenant.counters().route("GET /api/echo") == 2 }
        try await tenant.releaseHeldAnswers()
        _ = try await (first, second)
        #expect(try await tenant.counters().connections == 2)

        // The request dies on one reused connection, then its resend on the other one.
        try await tenant.inject(.dropReused, route: "GET /api/echo", count: 2)
        let error = await #expect(throws: CurlHTTPError.self) {
            _ = try await client.execute(.init(url: tenant.url("/api/echo?b=1")))
        }
        #expect(error?.code == .connectionClosed)
        #expect(try await tenant.counters().route("GET /api/echo") == 4)
    }

    @Test("a redirect still reaches its target: an answered attempt is not a resend")
    func redirectsAreNotResends() async throws {
        let tenant = try await FixtureServer.tenant("resendredirect")
        let client = try CurlHTTPClient()
        let response = try await client.execute(
            .init(url: tenant.url("/api/redirect?n=3&to=/api/echo"), isIdempotent: false))
        #expect(response.status == 200)
    }
}
