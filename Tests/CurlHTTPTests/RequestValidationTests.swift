import CurlHTTP
import FixtureSupport
import Foundation
import Testing

@Suite("Bad input is refused before any I/O")
struct RequestValidationTests {
    private func expectRefusal(
        _ request: CurlHTTPClient.Request,
        _ code: CurlHTTPError.Code,
        client: CurlHTTPClient,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let error = await #expect(throws: CurlHTTPError.self, sourceLocation: sourceLocation) {
            _ = try await client.execute(request)
        }
        #expect(error?.code == code, sourceLocation: sourceLocation)
    }

    @Test("malformed URLs are refused as invalidURL")
    func malformedURLs() async throws {
        let client = try CurlHTTPClient()
        for url in ["", "not a url", "http://", "http://exa mple.com/", "://missing-scheme"] {
            let error = await #expect(throws: CurlHTTPError.self) { _ = try await client.execute(.init(url: url)) }
            #expect(error?.code == .invalidURL || error?.code == .unsupportedScheme, "\(url)")
        }
    }

    @Test(
        "schemes other than http and https can never be fetched",
        arguments: [
            "file:///etc/passwd", "gopher://127.0.0.1/", "ftp://127.0.0.1/", "dict://127.0.0.1/", "ldap://127.0.0.1/",
            "scp://127.0.0.1/x", "javascript:alert(1)",
        ])
    func unsupportedSchemes(url: String) async throws {
        let client = try CurlHTTPClient()
        let error = await #expect(throws: CurlHTTPError.self) { _ = try await client.execute(.init(url: url)) }
        #expect(error?.code == .unsupportedScheme || error?.code == .invalidURL)
    }

    @Test("CR or LF in a header name or value is refused and nothing is sent")
    func headerInjection() async throws {
        let tenant = try await FixtureServer.tenant("injection")
        let client = try CurlHTTPClient()
        let url = tenant.url("/api/echo")
        await expectRefusal(
            .init(url: url, headers: ["X-Evil": "a\r\nX-Injected: yes"]), .invalidHeader, client: client)
        await expectRefusal(.init(url: url, headers: ["X-Evil": "a\nb"]), .invalidHeader, client: client)
        await expectRefusal(.init(url: url, headers: ["X-Evil\r\nX-Injected": "yes"]), .invalidHeader, client: client)
        await expectRefusal(.init(url: url, headers: ["": "empty name"]), .invalidHeader, client: client)
        await expectRefusal(.init(url: url, headers: ["X-Nul": "a\u{0}b"]), .invalidHeader, client: client)
        await expectRefusal(.init(method: "GET /x HTTP/1.1\r\n", url: url), .invalidHeader, client: client)
        #expect(try await tenant.counters().requests == 0)
    }

    @Test("a body over the configured maximum is refused before sending")
    func bodyTooLarge() async throws {
        let tenant = try await FixtureServer.tenant("bigbody")
        let client = try CurlHTTPClient(configuration: .init(maximumRequestBodySize: 1024))
        await expectRefusal(
            .init(method: .post, url: tenant.url("/api/echo"), body: Data(count: 1025)),
            .requestTooLarge,
            client: client
        )
        let accepted = try await client.execute(
            .init(method: .post, url: tenant.url("/api/echo"), body: Data(count: 1024)))
        #expect(try EchoReply(accepted.body).bodyLength == 1024)
        #expect(try await tenant.counters().route("POST /api/echo") == 1)
    }

    @Test("a redirect to a forbidden scheme is not followed")
    func redirectToForbiddenScheme() async throws {
        let tenant = try await FixtureServer.tenant("redirscheme")
        let client = try CurlHTTPClient()
        let url = tenant.url("/api/echo?status=302&set_header=Location:file:///etc/passwd")
        let error = await #expect(throws: CurlHTTPError.self) { _ = try await client.execute(.init(url: url)) }
        #expect(error?.code == .unsupportedScheme)
    }
}
