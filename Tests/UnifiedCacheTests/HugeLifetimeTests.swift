import FixtureSupport
import Foundation
import RedisReplication
import Testing

@testable import UnifiedCache

@Suite("Huge lifetimes from headers and settings: practically never, through memory, the second level and maintenance")
struct HugeLifetimeTests {
    private func echo(_ header: String, key: String, timeout: Timeout = .seconds(600)) -> SecondLevelGET {
        SecondLevelGET(
            path: "/api/echo", key: key, queryItems: [QueryItem("set_header", header)], timeout: timeout)
    }

    @Test("max-age of 19 digits is stored, written to the second level and read back by another replica")
    func maxAgeOfNineteenDigits() async throws {
        let harness = try await SecondLevelHarness("huge-max-age")
        defer { Task { await harness.shutdown() } }
        let request = echo("Cache-Control:max-age=9223372036854775807", key: "echo.huge", timeout: .never)

        #expect(try await harness.session(harness.a, .alice).source(of: request).source == .network)
        try await harness.waitForWrites(harness.a, 1)
        harness.clock.advance(seconds: 86_400)

        #expect(try await harness.session(harness.b, .alice).source(of: request).source == .cache)
        #expect(try await harness.counters().route("GET /api/echo") == 1)
        #expect(harness.b.secondLevelStatistics?.unusable == 0)
    }

    @Test("an Expires in year 9223372036854775807 is an invalid date: stored stale, so the next read asks again")
    func expiresBeyondFourDigitYears() async throws {
        let harness = try await SecondLevelHarness("huge-expires")
        defer { Task { await harness.shutdown() } }
        let request = echo("Expires:Sun, 06 Nov 9223372036854775807 08:49:37 GMT", key: "echo.expires")
        let alice = harness.session(harness.a, .alice)

        #expect(try await alice.source(of: request).source == .network)
        #expect(try await alice.source(of: request).source == .network)
        #expect(try await harness.counters().route("GET /api/echo") == 2)
    }

    @Test("a default timeout of 1e300 s in the settings is accepted, served from both levels, and maintenance runs")
    func settingsDefaultOf1e300() async throws {
        let settings = """
            { "timeouts": { "default": 1e300 }, "domainMap": "banking", "domains": { "balances": { "policy": 1e300 } },
              "sessions": { "idleTimeoutSeconds": 31536000 } }
            """
        let harness = try await SecondLevelHarness("huge-default") {
            try SettingsStore(settings: CacheSettings(json: Array(settings.utf8)))
        }
        defer { Task { await harness.shutdown() } }
        let request = SecondLevelGET(path: "/api/echo", key: "echo.default", timeout: .useDefault)
        let summary = UntypedGraphQLOperation(
            document: "query AccountSummary { accounts { id name balance } }", operationName: "AccountSummary")
        let onA = harness.session(harness.a, .alice)
        #expect(try await onA.source(of: request).source == .network)
        #expect(try await onA.graphQL.fetch(operation: summary).get().source == .network)
        try await harness.waitForWrites(harness.a, 2)
        harness.clock.advance(seconds: 86_400)

        let onB = harness.session(harness.b, .alice)
        #expect(try await onB.source(of: request).source == .cache)
        #expect(try await onB.graphQL.fetch(operation: summary).get().source == .cache)
        let report = await harness.a.runMaintenance()

        #expect(report.expiredEntries == 0 && report.expiredRecords == 0)
        #expect(try await onA.source(of: request).source == .cache)
        #expect(try await harness.counters().route("GET /api/echo") == 1)
        #expect(harness.b.secondLevelStatistics?.unusable == 0)
    }
}
