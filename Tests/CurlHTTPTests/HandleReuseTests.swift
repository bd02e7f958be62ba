import CurlHTTP
import FixtureSupport
import Foundation
import Testing

/// Sequential requests on one client run on the same pooled easy handle, which keeps its options between
/// requests: nothing one request sets for itself may reach the next.
@Suite("A reused easy handle carries nothing from one request to the next")
struct HandleReuseTests {
    @Test("method and body: POST, DELETE, GET, HEAD, GET, PUT, GET, PROPFIND, GET each arrive exactly as sent")
    func methodsAndBodiesDoNotLeak() async throws {
        let tenant = try await FixtureServer.tenant("reusemethods")
        let client = try CurlHTTPClient()
        let url = tenant.url("/api/echo")
        let sequence: [(CurlHTTPClient.Method, String?)] = [
            (.post, "first body"), (.delete, nil), (.get, nil), (.head, nil), (.get, nil), (.put, "put body"),
            (.get, nil), ("PROPFIND", nil), (.get, nil),
        ]
        for (method, body) in sequence {
            let response = try await client.execute(.init(method: method, url: url, body: body.map { Data($0.utf8) }))
            #expect(response.status == 200)
            if method == .head {
                #expect(response.body.isEmpty)
                continue
            }
            let echo = try EchoReply(response.body)
            #expect(echo.method == method.rawValue)
            #expect(echo.body == (body ?? ""))
            if body == nil { #expect(echo.header("content-length") == nil || echo.header("content-length") == "0") }
        }
        #expect(try await tenant.counters().route("GET /api/echo") == 4)
        #expect(try await tenant.counters().route("HEAD /api/echo") == 1)
    }

    @Test("a request's own User-Agent is not kept: the next request sends the configured one")
    func userAgentDoesNotLeak() async throws {
        let tenant = try await FixtureServer.tenant("reuseagent")
        let client = try CurlHTTPClient()
        let own = try await client.execute(.init(url: tenant.url("/api/echo"), headers: ["User-Agent": "custom/2"]))
        #expect(try EchoReply(own.body).headers["user-agent"] == ["custom/2"])
        let next = try await client.execute(.init(url: tenant.url("/api/echo")))
        #expect(try EchoReply(next.body).headers["user-agent"] == ["UnifiedCache-CurlHTTP/1"])
    }

    @Test("a cookie jar is not kept: the next request without a jar sends no cookie, another jar only its own")
    func cookieJarDoesNotLeak() async throws {
        let tenant = try await FixtureServer.tenant("reusejar")
        let client = try CurlHTTPClient()
        let alice = CookieJar()
        _ = try await client.execute(
            .init(url: tenant.url("/api/cookies/set?name=session&value=alice"), cookieJar: alice))
        let withoutJar = try await client.execute(.init(url: tenant.url("/api/echo")))
        #expect(try EchoReply(withoutJar.body).header("cookie") == nil)
        let bob = CookieJar()
        let withBob = try await client.execute(.init(url: tenant.url("/api/echo"), cookieJar: bob))
        #expect(try EchoReply(withBob.body).header("cookie") == nil)
        #expect(bob.cookies().isEmpty)
        #expect(alice.cookies().map(\.value) == ["alice"])
    }

    @Test("the redirect limit counts per request, not per handle")
    func redirectLimitIsPerRequest() async throws {
        let tenant = try await FixtureServer.tenant("reuseredirects")
        let client = try CurlHTTPClient(configuration: .init(redirectPolicy: .follow(maximum: 2)))
        for _ in 0..<3 {
            let response = try await client.execute(.init(url: tenant.url("/api/redirect?n=2&to=/api/echo")))
            #expect(response.status == 200)
        }
        let error = await #expect(throws: CurlHTTPError.self) {
            _ = try await client.execute(.init(url: tenant.url("/api/redirect?n=3&to=/api/echo")))
        }
        #expect(error?.code == .tooManyRedirects)
    }

    @Test("a request's own timeout is not kept: the next request gets the configured one")
    func timeoutDoesNotLeak() async throws {
        let tenant = try await FixtureServer.tenant("reusetimeout")
        // The own timeout is seconds, not milliseconds: under a busy parallel test run the fixture can take most of
        // a second to answer even a trivial request, and the quick request must not time out for that.
        // `setLatency` stretches the latency by the sanitizers' time scale itself; the quick timeout is stretched alike.
        // Both stay below the configured 30 s at every scale the runs use (TSan's 8: 16 s and 24 s).
        try await tenant.setLatency(milliseconds: 3000, route: "GET /api/echo")
        let client = try CurlHTTPClient()
        // Opens the connection first, so the request with its own timeout measures an answer, not a connect.
        let warmUp = try await client.execute(.init(url: tenant.url("/api/feature-flags")))
        #expect(warmUp.status == 200)
        // Succeeds well within its own shorter timeout, on the handle the next request reuses.
        let quick = try await client.execute(
            .init(url: tenant.url("/api/feature-flags"), timeout: .milliseconds(TestTiming.milliseconds(2000))))
        #expect(quick.status == 200)
        // Slower than that timeout, well within the configured 30 s.
        let slow = try await client.execute(.init(url: tenant.url("/api/echo")))
        #expect(slow.status == 200)
    }
}
