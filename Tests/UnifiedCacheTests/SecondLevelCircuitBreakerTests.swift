import FixtureSupport
import Foundation
import RedisReplication
import Testing

@testable import UnifiedCache

@Suite("The second level's circuit breaker skips a stalled Redis and comes back to it", .serialized)
struct SecondLevelCircuitBreakerTests {
    private let accounts = SecondLevelGET(path: "/api/accounts", key: "accountSummary.list")
    /// Patient enough that a loaded machine answers a live Redis in time, short enough that five timeouts are quick.
    private let deadline = Duration.milliseconds(TestTiming.milliseconds(250))

    /// A read of the accounts route under a key of its own, so each one misses in memory and asks the second level.
    private func distinct(_ index: Int) -> SecondLevelGET {
        SecondLevelGET(path: "/api/accounts", key: "breaker-\(index)")
    }

    /// Reads with `session` until the breaker of `hub` opens (at most `limit` reads); returns how many it took.
    private func readUntilOpen(_ session: CacheSession, _ hub: CacheHub, limit: Int) async throws -> Int {
        for index in 0..<limit {
            #expect(try await session.source(of: distinct(index)).source == .network)
            if hub.secondLevelStatistics?.isCircuitOpen == true { return index + 1 }
        }
        return limit
    }

    @Test("Redis paused: five failed reads open it, later reads skip Redis until the break ends, and it closes")
    func opensStaysOpenAndCloses() async throws {
        let redis = try await RedisTestServer.start()
        defer { redis.terminate() }
        let events = SecondLevelEventLog()
        let harness = try await SecondLevelHarness(
            "l2-breaker", redisURL: redis.url, readDeadline: deadline, secondLevelObserverOfB: events.append)
        defer { Task { await harness.shutdown() } }
        _ = try await harness.session(harness.a, .alice).source(of: accounts)
        try await harness.waitForWrites(harness.a, 1)

        redis.pause()
        let bob = harness.session(harness.b, .bob)
        #expect(try await readUntilOpen(bob, harness.b, limit: 10) == 5)
        let opened = try #require(harness.b.secondLevelStatistics)
        #expect(opened.store.timeouts + opened.store.errors == 5)
        #expect(opened.circuitOpenings == 1)
        #expect(events.events == [.circuitOpened(consecutiveFailures: 5, breakDuration: .seconds(10))])
        #expect(harness.b.metricsText().contains("ucache_l2_circuit_open 1\n"))
        #expect(harness.b.metricsText().contains("ucache_l2_circuit_openings_total 1\n"))
        let json = try JSONSerialization.jsonObject(with: harness.b.metricsJSON()) as? [String: Any]
        let secondLevel = json?["secondLevel"] as? [String: Any]
        #expect(secondLevel?["circuitOpen"] as? Bool == true)
        #expect(secondLevel?["circuitOpenings"] as? Int == 1)

        // Open: reads go straight to the upstream, asking Redis nothing (no deadline paid), and write nothing.
        for index in 10..<20 { #expect(try await bob.source(of: distinct(index)).source == .network) }
        harness.clock.advance(by: .milliseconds(9_999))
        #expect(try await bob.source(of: distinct(20)).source == .network)
        let skipping = try #require(harness.b.secondLevelStatistics)
        #expect(skipping.store.timeouts + skipping.store.errors == 5)
        #expect(skipping.store.answeredReads == opened.store.answeredReads)
        #expect(skipping.skippedReads == 11)
        #expect(skipping.isCircuitOpen)
        #expect(harness.b.metricsText().contains("ucache_l2_skipped_reads_total 11\n"))

        // Redis is back: after the break one trial read is made; an answered one closes the breaker.
        redis.resume()
        try await waitUntil { harness.b.secondLevelStatistics?.store.isConnected == true }
        var trial = 100
        try await waitUntil {
            harness.clock.advance(by: .seconds(10))
            _ = try await bob.source(of: distinct(trial))
            trial += 1
            return harness.b.secondLevelStatistics?.isCircuitOpen == false
        }
        #expect(events.events.last == .circuitClosed)
        #expect(events.events.count == 2 * (harness.b.secondLevelStatistics?.circuitOpenings ?? 0))
        // The second level serves again: alice's answer written by A before the pause is a hit on B.
        #expect(try await harness.session(harness.b, .alice).source(of: accounts).source == .cache)
        #expect(harness.b.metricsText().contains("ucache_l2_circuit_open 0\n"))
    }

    @Test("without a breaker every read pays its deadline while Redis is paused")
    func disabledBreakerKeepsAsking() async throws {
        let redis = try await RedisTestServer.start()
        defer { redis.terminate() }
        let harness = try await SecondLevelHarness(
            "l2-no-breaker", redisURL: redis.url, readDeadline: deadline, circuitBreaker: nil)
        defer { Task { await harness.shutdown() } }
        redis.pause()
        defer { redis.resume() }
        let bob = harness.session(harness.b, .bob)
        #expect(try await readUntilOpen(bob, harness.b, limit: 7) == 7)
        let statistics = try #require(harness.b.secondLevelStatistics)
        #expect(statistics.store.timeouts + statistics.store.errors == 7)
        #expect(statistics.circuitOpenings == 0)
        #expect(statistics.skippedReads == 0)
    }

    @Test("a logout made while the breaker is open is not skipped: it reaches Redis once Redis answers again")
    func logoutWhileOpenHolds() async throws {
        let redis = try await RedisTestServer.start()
        defer { redis.terminate() }
        let harness = try await SecondLevelHarness("l2-breaker-logout", redisURL: redis.url, readDeadline: deadline)
        defer { Task { await harness.shutdown() } }
        _ = try await harness.session(harness.b, .alice).source(of: accounts)
        try await harness.waitForWrites(harness.b, 1)

        redis.pause()
        #expect(try await readUntilOpen(harness.session(harness.b, .bob), harness.b, limit: 10) == 5)
        let appliedBefore = try #require(harness.b.secondLevelStatistics?.store.clears)
        _ = await harness.b.endSession(id: "session-alice")
        redis.resume()
        // The clear was sent despite the open breaker: the store applies it once Redis answers.
        try await waitUntil { (harness.b.secondLevelStatistics?.store.clears ?? 0) > appliedBefore }
        try await waitUntil { harness.a.secondLevelStatistics?.store.isConnected == true }

        // A, which never heard of the logout (no replication here) and keeps no clear marks of it, finds nothing of
        // the ended session in Redis: the clear B made while its breaker was open was not skipped.
        #expect(try await harness.session(harness.a, .alice).source(of: accounts).source == .network)
        #expect(harness.a.secondLevelStatistics?.store.misses == 1)  // A's read was answered: a miss, not a timeout
        #expect(try await harness.counters().route("GET /api/accounts") == 2 + 5)
    }
}

@Suite("The second level's circuit breaker as the front runs it")
struct SecondLevelCircuitTests {
    @Test("writes are queued only while the breaker is closed; skipped ones are counted")
    func writesOnlyWhileClosed() {
        let clock = ManualCacheClock()
        let circuit = SecondLevelCircuit(
            configuration: .init(failureThreshold: 2, breakDuration: .seconds(10)), clock: clock, observer: nil)
        #expect(circuit.permitsWrite())
        for _ in 0..<2 {
            guard let permit = circuit.permitRead() else {
                Issue.record("a read was skipped while the breaker was closed")
                return
            }
            circuit.record(permit, failed: true)
        }
        #expect(!circuit.permitsWrite())
        #expect(circuit.permitRead() == nil)
        clock.advance(by: .seconds(10))
        let trial = circuit.permitRead()
        #expect(trial?.isTrial == true)
        #expect(!circuit.permitsWrite())  // half-open: still not written
        if let trial { circuit.record(trial, failed: false) }
        #expect(circuit.permitsWrite())
        #expect(
            circuit.counters
                == SecondLevelCircuit.Counters(openings: 1, skippedReads: 1, skippedWrites: 2, isOpen: false))
    }

    @Test("without a configured breaker nothing is skipped, whatever fails")
    func noBreaker() {
        let circuit = SecondLevelCircuit(configuration: nil, clock: ManualCacheClock(), observer: nil)
        for _ in 0..<100 {
            let permit = circuit.permitRead()
            #expect(permit != nil)
            if let permit { circuit.record(permit, failed: true) }
        }
        #expect(circuit.permitsWrite())
        #expect(circuit.counters == SecondLevelCircuit.Counters())
    }
}
