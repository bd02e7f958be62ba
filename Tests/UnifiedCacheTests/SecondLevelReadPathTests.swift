import FixtureSupport
import Foundation
import RedisReplication
import Testing

@testable import UnifiedCache

@Suite("A shared second level: what one replica fetched, another serves without the upstream")
struct SecondLevelReadPathTests {
    private let accounts = SecondLevelGET(path: "/api/accounts", key: "accountSummary.list")

    @Test("B's first read of what A fetched is a second-level hit with no upstream call")
    func replicaStartsWarm() async throws {
        let harness = try await SecondLevelHarness("l2-warm")
        defer { Task { await harness.shutdown() } }
        #expect(try await harness.session(harness.a, .alice).source(of: accounts).source == .network)
        try await harness.waitForWrites(harness.a, 1)

        let fromB = try await harness.session(harness.b, .alice).source(of: accounts)

        #expect(fromB.source == .cache)
        #expect(try await harness.counters().route("GET /api/accounts") == 1)
        // Now in B's memory exactly as a network answer: the next read does not go to the second level.
        let readsBefore = harness.b.secondLevelStatistics?.store.answeredReads
        #expect(try await harness.session(harness.b, .alice).source(of: accounts).source == .cache)
        #expect(harness.b.secondLevelStatistics?.store.answeredReads == readsBefore)
        #expect(harness.b.secondLevelStatistics?.hits == 1)
        #expect(harness.b.restStore.entryCount(in: harness.session(harness.b, .alice).scope) == 1)
    }

    @Test("another principal's session, even under the same session id, never reads A's session entries")
    func otherPrincipalsMiss() async throws {
        let harness = try await SecondLevelHarness("l2-isolation")
        defer { Task { await harness.shutdown() } }
        _ = try await harness.session(harness.a, .alice).source(of: accounts)
        try await harness.waitForWrites(harness.a, 1)

        let bobSameID = harness.session(harness.b, .bob, id: "session-alice")
        #expect(try await bobSameID.source(of: accounts).source == .network)
        #expect(try await harness.session(harness.b, .carol).source(of: accounts).source == .network)
        #expect(try await harness.counters().route("GET /api/accounts") == 3)
        #expect(harness.b.secondLevelStatistics?.hits == 0)
    }

    @Test("shared entries are read by every session of every replica")
    func sharedEntries() async throws {
        let harness = try await SecondLevelHarness("l2-shared")
        defer { Task { await harness.shutdown() } }
        let flags = SecondLevelGET(path: "/api/feature-flags", key: "featureFlags.all", isShared: true)
        _ = try await harness.session(harness.a, .alice).source(of: flags)
        try await harness.waitForWrites(harness.a, 1)

        #expect(try await harness.session(harness.b, .bob).source(of: flags).source == .cache)
        #expect(try await harness.counters().route("GET /api/feature-flags") == 1)
    }

    @Test("an entry is not served past its expiry: the remaining lifetime is judged on the wall clock")
    func expiry() async throws {
        let harness = try await SecondLevelHarness("l2-expiry")
        defer { Task { await harness.shutdown() } }
        _ = try await harness.session(harness.a, .alice).source(of: accounts)
        try await harness.waitForWrites(harness.a, 1)

        // The fixture answers `max-age=60`, which caps the 600 s the request asks for.
        harness.clock.advance(seconds: 40)
        let hit = try await harness.session(harness.b, .alice).source(of: accounts)
        #expect(hit.source == .cache)
        #expect(hit.age == .seconds(40))
        harness.clock.advance(seconds: 20)  // 60 s after A stored it: stale in B's memory and in the second level
        #expect(try await harness.session(harness.b, .alice).source(of: accounts).source == .network)
        #expect(try await harness.counters().route("GET /api/accounts") == 2)
    }

    @Test("a stale entry with an ETag is revalidated with a 304, which freshens memory and the second level")
    func revalidation() async throws {
        let harness = try await SecondLevelHarness("l2-revalidation")
        defer { Task { await harness.shutdown() } }
        let read = SecondLevelGET(
            path: "/api/revalidation", key: "revalidation",
            queryItems: [QueryItem("etag", "v1"), QueryItem("max_age", "30")])
        _ = try await harness.session(harness.a, .alice).source(of: read)
        try await harness.waitForWrites(harness.a, 1)
        harness.clock.advance(seconds: 31)

        let revalidated = try await harness.session(harness.b, .alice).source(of: read)

        #expect(revalidated.wasRevalidated)
        #expect(try await harness.counters().statuses["304"] == 1)
        try await harness.waitForWrites(harness.b, 1)
        // A's own entry is stale; the second level now holds the freshened one, so A needs no upstream call.
        let requests = try await harness.counters().requests
        #expect(try await harness.session(harness.a, .alice).source(of: read).source == .cache)
        #expect(try await harness.counters().requests == requests)
    }

    @Test("a cache-only read is answered by the second level, and misses without calling the upstream")
    func cacheOnly() async throws {
        let harness = try await SecondLevelHarness("l2-cacheonly")
        defer { Task { await harness.shutdown() } }
        _ = try await harness.session(harness.a, .alice).source(of: accounts)
        try await harness.waitForWrites(harness.a, 1)
        var cacheOnly = accounts
        cacheOnly.policy = .cacheOnly

        #expect(try await harness.session(harness.b, .alice).source(of: cacheOnly).source == .cache)
        let miss = await harness.session(harness.b, .bob).rest.performWithSource(with: cacheOnly)
        guard case .failure(.cacheMiss) = miss else {
            Issue.record("another session's cache-only read should miss, got \(miss)")
            return
        }
        #expect(try await harness.counters().route("GET /api/accounts") == 1)
    }

    @Test("concurrent identical misses make one second-level read and one upstream call")
    func deduplication() async throws {
        let harness = try await SecondLevelHarness("l2-dedup")
        defer { Task { await harness.shutdown() } }
        try await harness.tenant.setLatency(milliseconds: 200, route: "GET /api/accounts")
        let session = harness.session(harness.a, .alice)
        let results = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<8 { group.addTask { (try? await session.source(of: accounts)) != nil } }
            return await group.reduce(into: [Bool]()) { $0.append($1) }
        }
        #expect(results == Array(repeating: true, count: 8))
        #expect(try await harness.counters().route("GET /api/accounts") == 1)
        #expect(harness.a.secondLevelStatistics?.store.answeredReads == 1)
    }

    @Test("a sealed value that does not decode is a miss, counted, and the network answer replaces it")
    func corruptValue() async throws {
        let harness = try await SecondLevelHarness("l2-corrupt")
        defer { Task { await harness.shutdown() } }
        let alice = harness.session(harness.a, .alice)
        let front = try #require(harness.a.secondLevel)
        let key = front.names.key(.rest, "accountSummary.list", in: alice.scope)
        guard case .miss(let generation) = await front.store.read(key, deadline: .seconds(2)) else {
            Issue.record("the empty second level should answer a miss")
            return
        }
        front.write(
            Array("garbage".utf8), kind: .rest, for: key, generation: generation, timeToLive: .seconds(60), tags: [])
        try await harness.waitForWrites(harness.a, 1)

        #expect(try await alice.source(of: accounts).source == .network)
        #expect(harness.a.secondLevelStatistics?.unusable == 1)
        #expect(harness.a.secondLevelStatistics?.rejected.total == 0)
        try await harness.waitForWrites(harness.a, 2)
        #expect(try await harness.session(harness.b, .alice).source(of: accounts).source == .cache)
    }
}
