import CurlHTTP
import FixtureSupport
import Foundation
import Testing

@Suite("Cancellation")
struct CancellationTests {
    @Test("cancelling the task mid-transfer fails that request with cancelled; the client keeps working")
    func cancelMidTransfer() async throws {
        let tenant = try await FixtureServer.tenant("cancel")
        try await tenant.setLatency(milliseconds: 5000, route: "GET /api/echo")
        let client = try CurlHTTPClient()
        let task = Task { try await client.execute(.init(url: tenant.url("/api/echo"))) }
        // Wait until the server holds the request (it is inside the injected latency), then cancel.
        try await waitUntil { try await tenant.counters().route("GET /api/echo") == 1 }
        task.cancel()
        let result = await task.result
        #expect(errorCode(result) == .cancelled)

        try await tenant.setLatency(milliseconds: 0)
        let after = try await client.execute(.init(url: tenant.url("/api/feature-flags")))
        #expect(after.status == 200)
    }

    @Test("a task cancelled before the request sends nothing")
    func cancelledBeforeStart() async throws {
        let tenant = try await FixtureServer.tenant("precancel")
        let client = try CurlHTTPClient()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await client.execute(.init(url: tenant.url("/api/echo")))
        }
        let result = await task.result
        #expect(errorCode(result) == .cancelled)
        #expect(try await tenant.counters().requests == 0)
    }

    @Test("cancelling one of several concurrent requests leaves the others alone")
    func cancelOneOfMany() async throws {
        let tenant = try await FixtureServer.tenant("cancelone")
        try await tenant.setLatency(milliseconds: 10_000, route: "GET /api/cookies")
        try await tenant.setLatency(milliseconds: 300, route: "GET /api/echo")
        let client = try CurlHTTPClient()
        let victim = Task { try await client.execute(.init(url: tenant.url("/api/cookies"))) }
        let others = (0..<5).map { index in
            Task { try await client.execute(.init(url: tenant.url("/api/echo?other=\(index)"))) }
        }
        try await waitUntil { try await tenant.counters().route("GET /api/cookies") == 1 }
        victim.cancel()
        #expect(errorCode(await victim.result) == .cancelled)
        for other in others { #expect(try await other.value.status == 200) }
    }
}

/// The CurlHTTPError code a task failed with, if it failed with one.
func errorCode<T>(_ result: Result<T, any Error>) -> CurlHTTPError.Code? {
    guard case .failure(let error) = result else { return nil }
    return (error as? CurlHTTPError)?.code
}
