import CurlHTTP
import FixtureSupport
import Foundation
import Testing

@Suite("Connections are reused")
struct ConnectionReuseTests {
    @Test("sequential requests to one host share one keep-alive connection")
    func sequentialRequestsShareOneConnection() async throws {
        let tenant = try await FixtureServer.tenant("reuse")
        let client = try CurlHTTPClient()
        var newConnections: [Int] = []
        for index in 0..<10 {
            let response = try await client.execute(.init(url: tenant.url("/api/echo?i=\(index)")))
            #expect(response.status == 200)
            newConnections.append(response.timings.newConnections)
        }
        #expect(newConnections.first == 1)
        #expect(newConnections.dropFirst().allSatisfy { $0 == 0 })
        #expect(try await tenant.counters().connections == 1)
    }

    @Test("timings are measured: total covers first byte, which covers connect")
    func timingsAreOrdered() async throws {
        let tenant = try await FixtureServer.tenant("timings")
        let client = try CurlHTTPClient()
        let timings = try await client.execute(.init(url: tenant.url("/api/echo"))).timings
        #expect(timings.total > .zero)
        #expect(timings.total >= timings.firstByte)
        #expect(timings.firstByte >= timings.connect)
    }
}
