import CurlHTTP
import FixtureSupport
import Foundation
import Testing

@Suite("Shutdown and lifetime")
struct ShutdownTests {
    @Test("shutdown fails requests in flight with shutdown and refuses later ones")
    func shutdownFailsInFlight() async throws {
        let tenant = try await FixtureServer.tenant("shutdown")
        try await tenant.setLatency(milliseconds: 5000, route: "GET /api/echo")
        let client = try CurlHTTPClient()
        let inFlight = Task { try await client.execute(.init(url: tenant.url("/api/echo"))) }
        try await waitUntil { try await tenant.counters().route("GET /api/echo") == 1 }

        await client.shutdown()
        #expect(errorCode(await inFlight.result) == .shutdown)
        let error = await #expect(throws: CurlHTTPError.self) {
            _ = try await client.execute(.init(url: tenant.url("/api/feature-flags")))
        }
        #expect(error?.code == .shutdown)
        await client.shutdown()  // a second call does nothing
    }

    @Test("clients dropped without shutdown release their threads")
    func droppedClientsReleaseThreads() async throws {
        let tenant = try await FixtureServer.tenant("drop")
        let before = ThreadCount.current()
        for _ in 0..<20 {
            let client = try CurlHTTPClient()
            _ = try await client.execute(.init(url: tenant.url("/api/feature-flags")))
        }
        // Each event-loop thread ends shortly after its client is released; poll the thread count.
        try await waitUntil { ThreadCount.current() <= before + 2 }
    }
}

/// Threads of this process, from /proc (Linux).
enum ThreadCount {
    static func current() -> Int {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task").count) ?? 0
    }
}
