import CurlHTTP
import FixtureSupport
import Foundation
import Testing

@Suite("Redirects")
struct RedirectTests {
    @Test("redirects are followed up to the limit and the effective URL is the final one")
    func followsRedirects() async throws {
        let tenant = try await FixtureServer.tenant("redirects")
        let client = try CurlHTTPClient(configuration: .init(redirectPolicy: .follow(maximum: 5)))
        let response = try await client.execute(.init(url: tenant.url("/api/redirect?n=3&to=/api/echo")))
        #expect(response.status == 200)
        #expect(response.effectiveURL.hasSuffix("/api/echo"))
        #expect(response.headers["location"] == nil)
        #expect(try await tenant.counters().route("GET /api/redirect") == 3)
    }

    @Test("with redirects denied the 3xx response itself is returned")
    func deniedRedirectReturnsTheRedirect() async throws {
        let tenant = try await FixtureServer.tenant("noredirect")
        let client = try CurlHTTPClient(configuration: .init(redirectPolicy: .never))
        let response = try await client.execute(.init(url: tenant.url("/api/redirect?n=1&to=/api/echo")))
        #expect(response.status == 302)
        #expect(response.headers["location"] != nil)
        #expect(try await tenant.counters().route("GET /api/echo") == 0)
    }

    @Test("more redirects than allowed fail with tooManyRedirects")
    func tooManyRedirects() async throws {
        let tenant = try await FixtureServer.tenant("redirloop")
        let client = try CurlHTTPClient(configuration: .init(redirectPolicy: .follow(maximum: 2)))
        let error = await #expect(throws: CurlHTTPError.self) {
            _ = try await client.execute(.init(url: tenant.url("/api/redirect?n=5&to=/api/echo")))
        }
        #expect(error?.code == .tooManyRedirects)
    }
}
