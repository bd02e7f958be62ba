import CacheCore
import FixtureSupport
import Foundation
import RESTCache
import Testing

@testable import RedisReplication
@testable import UnifiedCache

/// A clear a Redis writer cannot undo: what a replica learned about a clear — by making it, or over the sealed bus —
/// outranks what Redis holds. The attacker has the Redis password (a connection of their own), not the fleet secret.
@Suite("A clear a replica saw is never undone by what Redis holds")
struct SecondLevelClearMarkTests {
    private let payees = SecondLevelGET(path: "/api/payees", key: "payees.list", domains: ["payees"])
    private let accounts = SecondLevelGET(path: "/api/accounts", key: "accountSummary.list")

    @Test("tag sets deleted before a feature clear: neither replica serves the entry the clear should have removed")
    func tagSetsDeleted() async throws {
        let harness = try await SecondLevelHarness("l2-mark-tags", replicating: true)
        defer { Task { await harness.shutdown() } }
        _ = harness.session(harness.b, .alice)  // alice's session lives on both replicas (B has read nothing yet)
        _ = try await harness.session(harness.a, .alice).source(of: payees)
        try await harness.waitForWrites(harness.a, 1)
        let attacker = try RedisAttacker(harness)
        let tagSets = try attacker.keys(matching: "\(attacker.prefix){*}t:*")
        #expect(!tagSets.isEmpty)
        for key in tagSets { try attacker.delete(key) }
        harness.clock.advance(seconds: 10)  // the clear comes well after the value was stored

        await harness.session(harness.a, .alice).cacheManager.clearPayeesCache()
        try await harness.waitUntilApplied(harness.b, 1)
        #expect(try attacker.valueKeys().count == 1)  // the clear found no index: the value is still in Redis

        for hub in [harness.b, harness.a] {
            #expect(try await harness.session(hub, .alice).source(of: payees).source == .network)
            #expect(hub.secondLevelStatistics?.rejected.cleared == 1)
        }
        #expect(try await harness.counters().route("GET /api/payees") == 3)
    }

    @Test("a value saved before a feature clear and written back after it is refused by the replica that saw it")
    func valueWrittenBack() async throws {
        let harness = try await SecondLevelHarness("l2-mark-restore", replicating: true)
        defer { Task { await harness.shutdown() } }
        _ = harness.session(harness.b, .alice)
        _ = try await harness.session(harness.a, .alice).source(of: payees)
        try await harness.waitForWrites(harness.a, 1)
        let attacker = try RedisAttacker(harness)
        let key = try #require(try attacker.valueKeys().first)
        let saved = try attacker.fields(key)

        await harness.session(harness.a, .alice).cacheManager.clearPayeesCache()
        try await harness.waitUntilApplied(harness.b, 1)
        #expect(try attacker.valueKeys().isEmpty)  // the clear removed it
        try attacker.restore(key, saved)

        #expect(try await harness.session(harness.b, .alice).source(of: payees).source == .network)
        #expect(harness.b.secondLevelStatistics?.rejected.cleared == 1)
        #expect(harness.b.secondLevelStatistics?.hits == 0)
    }

    @Test("SET {ns}g to 7.0, one read, then the old generation and value back: nothing clearAllCaches dropped returns")
    func generationWalkAround() async throws {
        let harness = try await SecondLevelHarness("l2-mark-walk", replicating: true)
        defer { Task { await harness.shutdown() } }
        _ = try await harness.session(harness.a, .alice).source(of: accounts)
        try await harness.waitForWrites(harness.a, 1)
        #expect(try await harness.session(harness.b, .alice).source(of: accounts).source == .cache)
        let attacker = try RedisAttacker(harness)
        let scope = harness.session(harness.a, .alice).scope
        let generationKey = try attacker.generationKey(of: scope, in: harness.a)
        let valueKey = try #require(try attacker.valueKeys().first)
        let oldGeneration = try attacker.get(generationKey)
        let saved = try attacker.fields(valueKey)

        await harness.session(harness.a, .alice).cacheManager.clearAllCaches()
        try await harness.waitUntilApplied(harness.b, 1)
        try attacker.set(generationKey, Array("7.0".utf8))
        let other = SecondLevelGET(path: "/api/accounts", key: "accountSummary.other")
        #expect(try await harness.session(harness.b, .alice).source(of: other).source == .network)
        if let oldGeneration {
            try attacker.set(generationKey, oldGeneration)
        } else {
            try attacker.delete(generationKey)
        }
        try attacker.restore(valueKey, saved)

        let answer = try await harness.session(harness.b, .alice).source(of: accounts)
        #expect(answer.source == .network)
        let rejected = try #require(harness.b.secondLevelStatistics?.rejected)
        #expect(rejected.malformed == 1)
        #expect(rejected.rollback == 1)
        #expect(harness.b.secondLevelStatistics?.hits == 1)  // only the read before the clear
    }

    @Test("a value written after a clear by this replica is a hit at once; one from before it is refused")
    func ownWritesOrderedExactly() async throws {
        let harness = try await SecondLevelHarness("l2-mark-own")
        defer { Task { await harness.shutdown() } }
        let alice = harness.session(harness.a, .alice)
        _ = try await alice.source(of: payees)
        try await harness.waitForWrites(harness.a, 1)
        let attacker = try RedisAttacker(harness)
        let key = try #require(try attacker.valueKeys().first)
        let before = try attacker.fields(key)

        await alice.cacheManager.clearPayeesCache()
        _ = try await alice.source(of: payees)  // fetched again, written after the clear (same instant)
        try await harness.waitForWrites(harness.a, 2)
        let after = try attacker.fields(key)
        harness.a.dropMemory(of: alice)

        #expect(try await harness.session(harness.a, .alice).source(of: payees).source == .cache)
        try attacker.restore(key, before)
        harness.a.dropMemory(of: alice)
        #expect(try await harness.session(harness.a, .alice).source(of: payees).source == .network)
        #expect(harness.a.secondLevelStatistics?.rejected.cleared == 1)
        #expect(after != before)
    }

    @Test("marks are bounded: a namespace pushed out folds into the mark of everything, never forgotten")
    func boundedMarks() {
        let marks = SecondLevelClearMarks(skew: .seconds(2))
        let start = Date(timeIntervalSince1970: 1_700_000_000)
        let own: [UInt8] = Array(repeating: 1, count: 16)
        let other: [UInt8] = Array(repeating: 2, count: 16)
        func mark(_ seconds: Double) -> SecondLevelClearMarks.Mark {
            SecondLevelClearMarks.Mark(at: start.addingTimeInterval(seconds), sender: own, counter: UInt64(seconds))
        }
        func seal(_ seconds: Double) -> SecondLevelClearMarks.Seal {
            SecondLevelClearMarks.Seal(storedAt: start.addingTimeInterval(seconds), sender: other[...], counter: 0)
        }
        marks.mark([.domain("payees")], in: "first", mark(10))
        #expect(marks.refuses(seal(5), in: "first") { $0 == .domain("payees") })
        #expect(marks.refuses(seal(11.5), in: "first") { $0 == .domain("payees") })  // within the skew after it
        #expect(!marks.refuses(seal(12.5), in: "first") { $0 == .domain("payees") })
        #expect(!marks.refuses(seal(5), in: "first") { $0 == .domain("cards") })
        #expect(!marks.refuses(seal(5), in: "other") { _ in true })
        // Its own values are ordered by seal counter, not by time.
        let ownSeal = SecondLevelClearMarks.Seal(storedAt: start.addingTimeInterval(10), sender: own[...], counter: 10)
        #expect(!marks.refuses(ownSeal, in: "first") { _ in true })
        #expect(
            marks.refuses(SecondLevelClearMarks.Seal(storedAt: start, sender: own[...], counter: 9), in: "first") {
                _ in true
            })

        for index in 0..<SecondLevelClearMarks.namespaceCapacity {
            marks.markNamespace("namespace-\(index)", mark(20 + Double(index) / 1_000_000))
        }
        #expect(marks.namespaceCount <= SecondLevelClearMarks.namespaceCapacity)
        #expect(marks.refuses(seal(5), in: "first") { $0 == .domain("payees") })  // folded, still refused
        #expect(marks.refuses(seal(15), in: "never-marked") { _ in false })  // the fold reaches every namespace

        for index in 0..<(SecondLevelClearMarks.labelsPerNamespace + 8) {
            marks.mark([.entity("E:\(index)")], in: "many", mark(100 + Double(index)))
        }
        #expect(marks.refuses(seal(100), in: "many") { $0 == .entity("E:0") })
        #expect(marks.refuses(seal(100), in: "many") { _ in false })  // folded into the namespace's mark
    }
}

extension CacheHub {
    /// Drops `session`'s REST entries from this replica's memory only (no clear: the second level learns nothing), so
    /// the next read goes to the second level.
    func dropMemory(of session: CacheSession) {
        _ = restStore.clear(scope: session.scope, reason: .manual)
    }
}

extension RedisAttacker {
    /// Every key matching `pattern` (SCAN).
    func keys(matching pattern: String) throws -> [String] {
        var cursor = "0"
        var keys: [String] = []
        repeat {
            let reply = try run(["SCAN", cursor, "MATCH", pattern, "COUNT", "1000"].map { Array($0.utf8) })
            guard case .array(let parts) = reply, parts.count == 2, case .string(let next) = parts[0],
                case .array(let found) = parts[1]
            else { throw RedisAttackerError() }
            cursor = String(decoding: next, as: UTF8.self)
            for case .string(let key) in found { keys.append(String(decoding: key, as: UTF8.self)) }
        } while cursor != "0"
        return keys
    }

    /// A value key's fields (`g` and `d`), to write back later.
    func fields(_ key: String) throws -> [[UInt8]] {
        guard case .array(let items) = try run(["HGETALL", key].map { Array($0.utf8) }) else {
            throw RedisAttackerError()
        }
        return items.compactMap { item in
            if case .string(let bytes) = item { return bytes }
            return nil
        }
    }

    /// Writes saved fields back (and a TTL, as the fleet would).
    func restore(_ key: String, _ fields: [[UInt8]]) throws {
        _ = try run([Array("HSET".utf8), Array(key.utf8)] + fields)
        _ = try run(["PEXPIRE", key, "600000"].map { Array($0.utf8) })
    }
}
