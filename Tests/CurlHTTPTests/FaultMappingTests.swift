import CurlHTTP
import FixtureSupport
import Foundation
import Testing

@Suite("Injected faults map to stable error codes")
struct FaultMappingTests {
    private func outcome(
        of fault: FixtureFault,
        configuration: CurlHTTPClient.Configuration = .init(),
        timeout: Duration? = nil
    ) async throws -> Result<CurlHTTPClient.Response, CurlHTTPError> {
        let tenant = try await FixtureServer.tenant("fault")
        try await tenant.inject(fault, route: "GET /api/feature-flags")
        let client = try CurlHTTPClient(configuration: configuration)
        let request = CurlHTTPClient.Request(url: tenant.url("/api/feature-flags"), timeout: timeout)
        do {
            return .success(try await client.execute(request))
        } catch {
            return .failure(error)
        }
    }

    private func code(_ result: Result<CurlHTTPClient.Response, CurlHTTPError>) -> CurlHTTPError.Code? {
        if case .failure(let error) = result { return error.code }
        return nil
    }

    @Test("an injected status is a response with that status")
    func statusFault() async throws {
        let response = try await outcome(of: .status(503)).get()
        #expect(response.status == 503)
    }

    @Test("a dropped connection is connectionClosed")
    func dropFault() async throws {
        #expect(code(try await outcome(of: .drop)) == .connectionClosed)
    }

    @Test("a reset connection is connectionClosed")
    func resetFault() async throws {
        #expect(code(try await outcome(of: .reset)) == .connectionClosed)
    }

    @Test("a body shorter than its Content-Length is truncatedResponse")
    func truncateFault() async throws {
        #expect(code(try await outcome(of: .truncate)) == .truncatedResponse)
    }

    @Test("a malformed JSON body is delivered as received: the transport does not judge content")
    func malformedFault() async throws {
        let response = try await outcome(of: .malformed).get()
        #expect(response.status == 200)
        #expect((try? JSONSerialization.jsonObject(with: response.body)) == nil)
    }

    @Test("a delay longer than the request's timeout is timedOut")
    func delayFault() async throws {
        #expect(code(try await outcome(of: .delay(milliseconds: 3000), timeout: .milliseconds(300))) == .timedOut)
    }

    @Test("a slow dripping body past the total timeout is timedOut")
    func dripFault() async throws {
        let result = try await outcome(
            of: .drip(bytes: 10_000, intervalMilliseconds: 200, chunk: 100),
            configuration: .init(totalTimeout: .milliseconds(500))
        )
        #expect(code(result) == .timedOut)
    }

    @Test("a body announced larger than the maximum is refused before it is read")
    func oversizeFault() async throws {
        let result = try await outcome(
            of: .oversize(bytes: 2_000_000), configuration: .init(maximumResponseSize: 1_000_000))
        guard case .failure(let error) = result else {
            Issue.record("expected tooLarge")
            return
        }
        #expect(error.code == .tooLarge)
        #expect(error.curlCode == 63)  // CURLE_FILESIZE_EXCEEDED: decided from Content-Length
    }

    @Test("a chunked body is aborted as soon as it passes the maximum")
    func oversizeChunkedFault() async throws {
        let result = try await outcome(
            of: .oversizeChunked(bytes: 8_000_000),
            configuration: .init(maximumResponseSize: 100_000)
        )
        guard case .failure(let error) = result else {
            Issue.record("expected tooLarge")
            return
        }
        #expect(error.code == .tooLarge)
        #expect(error.curlCode == 23)  // CURLE_WRITE_ERROR: our write callback refused the byte past the limit
    }

    @Test("a refused connection is connectFailed")
    func connectionRefused() async throws {
        let client = try CurlHTTPClient()
        let port = try UnusedPort.find()
        let error = await #expect(throws: CurlHTTPError.self) {
            _ = try await client.execute(.init(url: "http://127.0.0.1:\(port)/api/echo"))
        }
        #expect(error?.code == .connectFailed)
    }
}
