import FixtureSupport
import Foundation
import RedisReplication
import Testing

@testable import UnifiedCache

@Suite("Second-level trouble is a miss, never a caller error", .serialized)
struct SecondLevelOutageTests {
    private let accounts = SecondLevelGET(path: "/api/accounts", key: "accountSummary.list")

    @Test("Redis paused mid-read: the read passes its deadline and the network answers")
    func pausedRedis() async throws {
        let redis = try await RedisTestServer.start()
        defer { redis.terminate() }
        let harness = try await SecondLevelHarness(
            "l2-paused", redisURL: redis.url, readDeadline: .milliseconds(TestTiming.milliseconds(50)))
        defer { Task { await harness.shutdown() } }
        _ = try await harness.session(harness.a, .alice).source(of: accounts)
        try await harness.waitForWrites(harness.a, 1)

        redis.pause()
        defer { redis.resume() }
        let answer = try await harness.session(harness.b, .alice).source(of: accounts)

        #expect(answer.source == .network)
        // The read's deadline passed, or (on a machine slow enough) the store declared the frozen link dead first.
        let store = try #require(harness.b.secondLevelStatistics?.store)
        #expect(store.timeouts + store.errors == 1)
        #expect(try await harness.counters().route("GET /api/accounts") == 2)
    }

    @Test("Redis down: reads, writes and every clear return without error; the caches keep serving")
    func redisDown() async throws {
        let redis = try await RedisTestServer.start()
        let harness = try await SecondLevelHarness("l2-down", redisURL: redis.url)
        defer { Task { await harness.shutdown() } }
        await redis.kill()
        try await waitUntil { harness.b.secondLevelStatistics?.store.isConnected == false }

        let alice = harness.session(harness.b, .alice)
        #expect(try await alice.source(of: accounts).source == .network)
        #expect(try await alice.source(of: accounts).source == .cache)  // memory still works
        await alice.cacheManager.clearPayeesCache()
        await harness.b.endSession(id: "session-alice")
        await harness.b.clearSecondLevel()
        #expect(try await harness.session(harness.b, .alice).source(of: accounts).source == .network)
        #expect(harness.b.metricsText().contains("ucache_l2_up 0\n"))
    }

    @Test("the second level's series are in the Prometheus text and the JSON metrics")
    func metrics() async throws {
        let harness = try await SecondLevelHarness("l2-metrics")
        defer { Task { await harness.shutdown() } }
        _ = try await harness.session(harness.a, .alice).source(of: accounts)
        try await harness.waitForWrites(harness.a, 1)
        _ = try await harness.session(harness.b, .alice).source(of: accounts)

        let text = harness.b.metricsText()
        for line in [
            "ucache_l2_up 1", "ucache_l2_hits_total 1", "ucache_l2_misses_total 0", "ucache_l2_errors_total 0",
            "ucache_l2_timeouts_total 0", "ucache_l2_dropped_writes_total 0", "ucache_l2_read_latency_seconds_count 1",
        ] {
            #expect(text.contains(line + "\n"), "\(line)")
        }
        #expect(text.contains("ucache_l2_bytes_read_total "))
        #expect(harness.a.metricsText().contains("ucache_l2_misses_total 1\n"))
        let json = try JSONSerialization.jsonObject(with: harness.b.metricsJSON()) as? [String: Any]
        let secondLevel = json?["secondLevel"] as? [String: Any]
        #expect(secondLevel?["hits"] as? Int == 1)
        #expect(json?["totals"] != nil)
    }
}
