import CurlHTTP
import FixtureSupport
import Foundation
import Testing

@Suite("Methods, headers and bodies over real HTTP")
struct MethodsAndHeadersTests {
    @Test(
        "every method reaches the server as sent, with its body",
        arguments: [CurlHTTPClient.Method.get, .post, .put, .patch, .delete, .options, "PROPFIND"]
    )
    func everyMethodReachesTheServer(method: CurlHTTPClient.Method) async throws {
        let tenant = try await FixtureServer.tenant("methods")
        let client = try CurlHTTPClient()
        let body = method == .get ? nil : Data("payload for \(method)".utf8)
        let response = try await client.execute(.init(method: method, url: tenant.url("/api/echo"), body: body))

        #expect(response.status == 200)
        let echo = try EchoReply(response.body)
        #expect(echo.method == method.rawValue)
        #expect(echo.body == (body.map { String(decoding: $0, as: UTF8.self) } ?? ""))
        #expect(try await tenant.counters().route("\(method) /api/echo") == 1)
    }

    @Test("HEAD returns the headers without a body")
    func headHasNoBody() async throws {
        let tenant = try await FixtureServer.tenant("head")
        let client = try CurlHTTPClient()
        let response = try await client.execute(.init(method: .head, url: tenant.url("/api/echo")))
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(response.headers["content-type"] != nil)
    }

    @Test("a binary body arrives byte for byte")
    func binaryBodyRoundTrips() async throws {
        let tenant = try await FixtureServer.tenant("binary")
        let client = try CurlHTTPClient()
        let bytes = Data((0..<70_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        let response = try await client.execute(.init(method: .post, url: tenant.url("/api/echo"), body: bytes))
        #expect(try EchoReply(response.body).bodyLength == bytes.count)
    }

    @Test("request headers are sent as given, repeats included, with no Expect: 100-continue")
    func requestHeadersAreSent() async throws {
        let tenant = try await FixtureServer.tenant("reqheaders")
        let client = try CurlHTTPClient()
        var headers: CurlHTTPClient.Headers = ["Authorization": "Bearer token-alice", "X-Trace": "one"]
        headers.add(name: "X-Trace", value: "two")
        headers.add(name: "X-Empty", value: "")
        let response = try await client.execute(
            .init(method: .post, url: tenant.url("/api/echo"), headers: headers, body: Data(count: 5000))
        )
        let echo = try EchoReply(response.body)
        #expect(echo.header("authorization") == "Bearer token-alice")
        #expect(echo.headers["x-trace"]?.joined(separator: ",").contains("two") == true)
        #expect(echo.headers["x-empty"] == [""])
        #expect(echo.header("expect") == nil)
        #expect(echo.header("user-agent") == "UnifiedCache-CurlHTTP/1")
    }

    @Test("response headers are readable case-insensitively, repeats kept in order")
    func responseHeadersAreKept() async throws {
        let tenant = try await FixtureServer.tenant("respheaders")
        let client = try CurlHTTPClient()
        let url = tenant.url(
            "/api/echo?set_header=X-Multi:first&set_header=X-Multi:second&set_header=Cache-Control:max-age%3D5")
        let response = try await client.execute(.init(url: url))
        #expect(response.headers.values(for: "x-multi") == ["first", "second"])
        #expect(response.headers["CACHE-CONTROL"] == "max-age=5")
        #expect(response.httpVersion == "1.1")
        #expect(response.effectiveURL == url)
    }

    @Test("an error status is a response, not a thrown error")
    func errorStatusIsAResponse() async throws {
        let tenant = try await FixtureServer.tenant("status")
        let client = try CurlHTTPClient()
        let response = try await client.execute(.init(url: tenant.url("/api/status/418")))
        #expect(response.status == 418)
        #expect(!response.isSuccess)
    }
}
