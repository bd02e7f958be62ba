import CacheCore
import FixtureSupport
import Foundation
import RESTCache
import Testing

@testable import RedisReplication
@testable import UnifiedCache

/// A clear of a session this replica did not hold when it arrived over the bus is remembered under the session's
/// wire name and becomes its clear mark when the session comes here: the value the clear dropped, written back by
/// someone with the Redis password, is refused. The attacker has the Redis password, not the fleet secret.
@Suite("A clear of a session held elsewhere is remembered until the session comes here")
struct SecondLevelPendingMarkTests {
    private let payees = SecondLevelGET(path: "/api/payees", key: "payees.list", domains: ["payees"])
    private let accounts = SecondLevelGET(path: "/api/accounts", key: "accountSummary.list")

    @Test("a logout on A of a session B never held: the old value and generation written back are refused on B")
    func logoutOfUnheldSession() async throws {
        let harness = try await SecondLevelHarness("l2-pending-logout", replicating: true)
        defer { Task { await harness.shutdown() } }
        let scope = harness.session(harness.a, .alice).scope  // alice's session lives on A only
        _ = try await harness.session(harness.a, .alice).source(of: accounts)
        try await harness.waitForWrites(harness.a, 1)
        let attacker = try RedisAttacker(harness)
        let generationKey = try attacker.generationKey(of: scope, in: harness.a)
        let valueKey = try #require(try attacker.valueKeys().first)
        let oldGeneration = try attacker.get(generationKey)
        let saved = try attacker.fields(valueKey)
        #expect(harness.b.sessionCount == 0)

        _ = await harness.a.endSession(id: "session-alice")
        try await harness.waitUntilUnknown(harness.b, 1)  // B holds no such session: nothing to apply
        if let oldGeneration {
            try attacker.set(generationKey, oldGeneration)
        } else {
            try attacker.delete(generationKey)
        }
        try attacker.restore(valueKey, saved)

        let answer = try await harness.session(harness.b, .alice).source(of: accounts)  // her next request lands on B
        #expect(answer.source == .network)
        #expect(harness.b.secondLevelStatistics?.rejected.cleared == 1)
        #expect(harness.b.secondLevelStatistics?.hits == 0)
        #expect(try await harness.counters().route("GET /api/accounts") == 2)
    }

    @Test("a feature clear on A of a session B never held: its value written back is refused on B, others still hit")
    func featureClearOfUnheldSession() async throws {
        let harness = try await SecondLevelHarness("l2-pending-feature", replicating: true)
        defer { Task { await harness.shutdown() } }
        let scope = harness.session(harness.a, .alice).scope
        _ = try await harness.session(harness.a, .alice).source(of: payees)
        _ = try await harness.session(harness.a, .alice).source(of: accounts)
        try await harness.waitForWrites(harness.a, 2)
        let attacker = try RedisAttacker(harness)
        let payeesKey = try attacker.valueKey(of: scope, payees.key, in: harness.a)
        let saved = try attacker.fields(payeesKey)
        #expect(!saved.isEmpty)
        harness.clock.advance(seconds: 10)  // the clear comes well after the values were stored

        await harness.session(harness.a, .alice).cacheManager.clearPayeesCache()
        try await harness.waitUntilUnknown(harness.b, 1)
        #expect(try attacker.fields(payeesKey).isEmpty)  // the clear removed it
        try attacker.restore(payeesKey, saved)

        let alice = harness.session(harness.b, .alice)
        #expect(try await alice.source(of: payees).source == .network)
        #expect(harness.b.secondLevelStatistics?.rejected.cleared == 1)
        // Only what the clear named is refused: the account summary, sealed at the same time, is still a hit.
        #expect(try await alice.source(of: accounts).source == .cache)
        #expect(harness.b.secondLevelStatistics?.hits == 1)
    }

    @Test("with a second level, a clear of a session not held here is decoded, not passed over: its marks are kept")
    func unheldClearDecodedForMarks() async throws {
        let harness = try await SecondLevelHarness("l2-pending-decoded", replicating: true)
        defer { Task { await harness.shutdown() } }
        await harness.session(harness.a, .alice).cacheManager.clearPayeesCache()
        try await harness.waitUntilUnknown(harness.b, 1)

        let coordinator = try #require(harness.b.replication)
        #expect(coordinator.undecodedUnheldClears == 0)
        #expect(coordinator.state.withLock { $0.pendingMarks?.count } == 1)
    }

    @Test("a logout B does not apply to a session it counts as newer still marks the second level on B")
    func logoutPredatingSession() async throws {
        // A's replication clock runs 10 s behind B's: B counts alice's session as created after A's logout.
        let harness = try await SecondLevelHarness(
            "l2-pending-newer", replicating: true,
            replicationClocks: (
                a: ManualCacheClock(date: Date(timeIntervalSince1970: 1_700_000_000)),
                b: ManualCacheClock(date: Date(timeIntervalSince1970: 1_700_000_010))
            ))
        defer { Task { await harness.shutdown() } }
        let scope = harness.session(harness.b, .alice).scope  // B holds her session (it has read nothing)
        _ = try await harness.session(harness.a, .alice).source(of: accounts)
        try await harness.waitForWrites(harness.a, 1)
        let attacker = try RedisAttacker(harness)
        let generationKey = try attacker.generationKey(of: scope, in: harness.a)
        let valueKey = try #require(try attacker.valueKeys().first)
        let oldGeneration = try attacker.get(generationKey)
        let saved = try attacker.fields(valueKey)

        _ = await harness.a.endSession(id: "session-alice")
        try await waitUntil { (harness.b.replicationStatistics?.rejectedByReason[.predatesSession] ?? 0) >= 1 }
        #expect(harness.b.sessionCount == 1)  // not ended on B: by B's clock it began after the logout
        if let oldGeneration {
            try attacker.set(generationKey, oldGeneration)
        } else {
            try attacker.delete(generationKey)
        }
        try attacker.restore(valueKey, saved)

        #expect(try await harness.session(harness.b, .alice).source(of: accounts).source == .network)
        #expect(harness.b.secondLevelStatistics?.rejected.cleared == 1)
    }

    @Test("pending marks are bounded: an entry pushed out becomes the horizon every later session gets, never lost")
    func boundedPendingMarks() {
        var pending = PendingClearMarks(capacity: 4, maximumAge: .seconds(3_600))
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let own: [UInt8] = Array(repeating: 1, count: 16)
        func mark(_ seconds: Double) -> SecondLevelClearMarks.Mark {
            SecondLevelClearMarks.Mark(at: start.addingTimeInterval(seconds), sender: own, counter: UInt64(seconds))
        }
        #expect(pending.isEmpty)
        var folded = [pending.record(.namespace, hash: "h0", mark(10))]
        for index in 1...4 {
            folded.append(pending.record(.labels([.domain("payees")]), hash: "h\(index)", mark(10 + Double(index))))
        }
        #expect(folded.allSatisfy { $0 == nil })  // nothing is old enough for the mark of everything
        #expect(pending.count == 4)  // h0, the oldest, was pushed out…
        #expect(pending.horizon == mark(10))  // …into the horizon

        // The session pushed out still gets its mark (as the horizon), and so does any session registered later.
        let pushedOut = pending.take(["h0"], now: start).owed
        #expect(pushedOut == PendingClearMarks.Entry(whole: mark(10)))
        let later = pending.take(["never-cleared"], now: start).owed
        #expect(later == PendingClearMarks.Entry(whole: mark(10)))
        // A session still pending gets its own labels and the horizon; under any key of the ring.
        let owed = pending.take(["other-key-name", "h4"], now: start).owed
        #expect(owed == PendingClearMarks.Entry(whole: mark(10), labels: [.domain("payees"): mark(14)]))
        #expect(pending.count == 3)

        // Past the second level's maximum time to live, what is left folds into the mark of everything.
        let late = mark(10 + 3_600 + 100)
        let everything = pending.record(.namespace, hash: "h9", late)
        #expect(everything == mark(13))
        #expect(pending.count == 1)
        #expect(pending.horizon == nil)
        let last = pending.take(["h9"], now: late.at).owed
        #expect(last == PendingClearMarks.Entry(whole: late))
        #expect(pending.isEmpty)
    }

    @Test("tag marks beyond the bound fold into the session's whole-namespace mark")
    func boundedLabels() {
        var pending = PendingClearMarks(capacity: 4, maximumAge: .seconds(3_600))
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let own: [UInt8] = Array(repeating: 1, count: 16)
        for index in 0..<(PendingClearMarks.labelsPerSession + 1) {
            let mark = SecondLevelClearMarks.Mark(
                at: start.addingTimeInterval(Double(index)), sender: own, counter: UInt64(index))
            _ = pending.record(.labels([.entity("E:\(index)")]), hash: "h", mark)
        }
        let owed = pending.take(["h"], now: start).owed
        #expect(owed?.labels.count == PendingClearMarks.labelsPerSession)
        #expect(owed?.labels[.entity("E:0")] == nil)
        #expect(owed?.whole?.at == start)  // E:0's mark, now the namespace's
    }
}

extension SecondLevelHarness {
    /// Waits until `hub` has counted `count` clears of sessions it does not hold.
    func waitUntilUnknown(_ hub: CacheHub, _ count: Int) async throws {
        try await waitUntil { (hub.replicationStatistics?.unknownSession ?? 0) >= count }
    }
}
