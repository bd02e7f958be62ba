import CurlHTTP
import FixtureSupport
import Foundation
import Synchronization
import Testing

@Suite("Many requests at once")
struct ConcurrencyTests {
    @Test("250 concurrent requests each get their own answer")
    func manyConcurrentRequests() async throws {
        let tenant = try await FixtureServer.tenant("concurrent")
        let client = try CurlHTTPClient()
        let count = 250
        let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for index in 0..<count {
                group.addTask {
                    let response = try await client.execute(.init(url: tenant.url("/api/echo?id=\(index)")))
                    return (index, try EchoReply(response.body).query["id"]?.first ?? "")
                }
            }
            var answers: [Int: String] = [:]
            for try await (index, echoed) in group { answers[index] = echoed }
            return answers
        }
        #expect(answers.count == count)
        #expect(answers.allSatisfy { "\($0.key)" == $0.value })
        #expect(try await tenant.counters().route("GET /api/echo") == count)
    }

    @Test("over plain HTTP a slow request does not hold up another one, with the default configuration")
    func noHeadOfLineBlockingOverPlainHTTP() async throws {
        let tenant = try await FixtureServer.tenant("noholblocking")
        try await tenant.holdAnswers(route: "GET /api/accounts")
        let client = try CurlHTTPClient()
        let slowDone = Atomic<Bool>(false)
        let slow = Task {
            _ = try await client.execute(.init(url: tenant.url("/api/accounts")))
            slowDone.store(true, ordering: .sequentiallyConsistent)
        }
        try await waitUntil { try await tenant.counters().route("GET /api/accounts") == 1 }
        let fast = try await client.execute(.init(url: tenant.url("/api/echo?id=1")))
        #expect(fast.status == 200)
        let slowWasDone = slowDone.load(ordering: .sequentiallyConsistent)
        #expect(!slowWasDone)
        try await tenant.releaseHeldAnswers()
        try await slow.value
    }
}
