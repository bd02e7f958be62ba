import CurlHTTP
import FixtureSupport
import Foundation
import Testing

@Suite("Errors never leak secrets")
struct ErrorDescriptionTests {
    @Test("an error's description omits userinfo, query and header values")
    func descriptionIsRedacted() async throws {
        let client = try CurlHTTPClient()
        let port = try UnusedPort.find()
        let url = "http://user:hunter2@127.0.0.1:\(port)/api/accounts?token=secret-token"
        let error = await #expect(throws: CurlHTTPError.self) {
            _ = try await client.execute(.init(url: url, headers: ["Authorization": "Bearer secret-bearer"]))
        }
        let text = String(describing: try #require(error))
        #expect(error?.code == .connectFailed)
        #expect(text.contains("/api/accounts"))
        for secret in ["hunter2", "secret-token", "secret-bearer", "token="] {
            #expect(!text.contains(secret), "description leaks \(secret)")
        }
    }

    @Test("an invalid header value is named by its header, never printed")
    func invalidHeaderDescription() async throws {
        let client = try CurlHTTPClient()
        let error = await #expect(throws: CurlHTTPError.self) {
            _ = try await client.execute(.init(url: "http://127.0.0.1/", headers: ["Cookie": "sid=abc\r\nX: y"]))
        }
        let text = String(describing: try #require(error))
        #expect(text.contains("Cookie"))
        #expect(!text.contains("sid=abc"))
    }

    @Test("headers describe their names only")
    func headersDescribeNamesOnly() {
        let headers: CurlHTTPClient.Headers = ["Authorization": "Bearer abc", "Accept": "application/json"]
        #expect(String(describing: headers) == "Headers(Authorization, Accept)")
    }
}
