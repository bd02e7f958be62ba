import CacheCore
import FixtureSupport
import Foundation
import RESTCache
import Synchronization
import Testing

@testable import RedisReplication
@testable import UnifiedCache

/// Generation and epoch tokens read from Redis are parsed strictly; a writer who sets one to another shape or to a
/// huge number moves no mark, is counted and reported once, and cannot switch a namespace's second level off beyond
/// the fleet's next clear of it.
@Suite("Generation tokens from Redis: parsed strictly, counted, never moving a mark, recovered by the next clear")
struct SecondLevelGenerationTokenTests {
    @Test("tokens of another shape are malformed rejections and never move the remembered generation")
    func malformedTokens() async throws {
        let harness = try await SecondLevelHarness("l2-token-malformed")
        defer { Task { await harness.shutdown() } }
        let front = try #require(harness.b.secondLevel)
        let alice = harness.session(harness.b, .alice)
        _ = try await alice.source(of: Self.read("start"))
        try await harness.waitForWrites(harness.b, 1)
        let namespace = front.names.namespace(of: alice.scope)
        let remembered = try #require(front.generations.highest(in: namespace))
        let attacker = try RedisAttacker(harness)
        let generationKey = try attacker.generationKey(of: alice.scope, in: harness.b)
        let shapes = ["7.0", "-1", " 1", "01", "1e3", "abc", "", "1.", "99999999999999999999999"]

        for (index, shape) in shapes.enumerated() {
            try attacker.set(generationKey, Array(shape.utf8))
            #expect(try await alice.source(of: Self.read("shape-\(index)")).source == .network)
            #expect(front.generations.highest(in: namespace) == remembered)
        }

        #expect(front.statistics().rejected.malformed == shapes.count)
        #expect(front.statistics().store.writes == 1)  // nothing was written under a malformed token
        #expect(front.statistics().store.droppedWrites == 0)
        #expect(SecondLevelGenerationGuard.token("0.18446744073709551615")?.generation == .max)
        #expect(SecondLevelGenerationGuard.token("0.18446744073709551616") == nil)
        #expect(SecondLevelGenerationGuard.token("1.2.3") == nil)
    }

    @Test("a huge generation, read once and set back: the namespace is read again, and after the next clear too")
    func hugeGenerationSetBack() async throws {
        let events = SecondLevelEventLog()
        let harness = try await SecondLevelHarness("l2-token-huge", secondLevelObserverOfB: events.append)
        defer { Task { await harness.shutdown() } }
        let front = try #require(harness.b.secondLevel)
        let alice = harness.session(harness.b, .alice)
        _ = try await alice.source(of: Self.read("start"))
        let attacker = try RedisAttacker(harness)
        let generationKey = try attacker.generationKey(of: alice.scope, in: harness.b)
        let old = try attacker.get(generationKey)

        try attacker.set(generationKey, Array(String(UInt64.max - 1).utf8))
        #expect(try await alice.source(of: Self.read("huge-1")).source == .network)
        #expect(try await alice.source(of: Self.read("huge-2")).source == .network)
        if let old { try attacker.set(generationKey, old) } else { try attacker.delete(generationKey) }

        await harness.session(harness.a, .alice).cacheManager.clearAllCaches()  // the fleet's next clear
        _ = try await harness.session(harness.a, .alice).source(of: Self.read("after"))
        try await harness.waitForWrites(harness.a, 1)
        #expect(try await alice.source(of: Self.read("after")).source == .cache)

        #expect(front.statistics().rejected.implausible == 2)
        #expect(front.statistics().rejected.rollback == 0)
        let namespace = front.names.namespace(of: alice.scope).name
        #expect(events.events == [.implausibleGeneration(namespace: namespace)])  // reported once
    }

    @Test("a huge generation left in Redis: counted and reported once; the next clear writes a plausible one")
    func hugeGenerationLeftInPlace() async throws {
        let harness = try await SecondLevelHarness("l2-token-huge-left")
        defer { Task { await harness.shutdown() } }
        let front = try #require(harness.b.secondLevel)
        let alice = harness.session(harness.b, .alice)
        let attacker = try RedisAttacker(harness)
        let generationKey = try attacker.generationKey(of: alice.scope, in: harness.b)
        try attacker.set(generationKey, Array("9223372036854775807".utf8))  // INCR cannot move it any more

        _ = try await harness.session(harness.a, .alice).source(of: Self.read("before"))
        #expect(try await alice.source(of: Self.read("before")).source == .network)
        #expect(front.statistics().rejected.implausible == 1)

        await harness.session(harness.a, .alice).cacheManager.clearAllCaches()
        let repaired = try #require(
            try attacker.get(generationKey).flatMap { UInt64(String(decoding: $0, as: UTF8.self)) })
        #expect(repaired < SecondLevelGenerationGuard.plausibleLimit)
        _ = try await harness.session(harness.a, .alice).source(of: Self.read("after"))
        try await harness.waitForWrites(harness.a, 1)
        #expect(try await alice.source(of: Self.read("after")).source == .cache)
        #expect(front.statistics().rejected.implausible == 1)
    }

    @Test("a huge fleet epoch: every namespace is refused and counted until the next fleet-wide clear repairs it")
    func hugeEpoch() async throws {
        let harness = try await SecondLevelHarness("l2-token-epoch")
        defer { Task { await harness.shutdown() } }
        let front = try #require(harness.b.secondLevel)
        let attacker = try RedisAttacker(harness)
        try attacker.set("\(attacker.prefix)e", Array("9223372036854775807".utf8))  // INCR cannot move it any more

        #expect(try await harness.session(harness.b, .alice).source(of: Self.read("before")).source == .network)
        #expect(try await harness.session(harness.b, .bob).source(of: Self.read("before")).source == .network)
        #expect(front.statistics().rejected.implausible == 2)

        await harness.a.clearSecondLevel()
        let epoch = try #require(
            try attacker.get("\(attacker.prefix)e").flatMap { UInt64(String(decoding: $0, as: UTF8.self)) })
        #expect(epoch < SecondLevelGenerationGuard.plausibleLimit)
        _ = try await harness.session(harness.a, .alice).source(of: Self.read("after"))
        try await harness.waitForWrites(harness.a, 1)
        #expect(try await harness.session(harness.b, .alice).source(of: Self.read("after")).source == .cache)
        #expect(front.statistics().rejected.implausible == 2)
    }

    @Test("a tag clear whose connection is cut after the tag sets were taken loses no entry when sent again")
    func tagClearCutAndRetried() async throws {
        let redisURL = try await RedisTestServer.sharedURL()
        var components = try #require(URLComponents(string: redisURL))
        let proxy = try CuttingProxy(to: components.host ?? "127.0.0.1", port: components.port ?? 6379)
        defer { proxy.stop() }
        components.port = proxy.port
        let proxied = try #require(components.string)
        let harness = try await SecondLevelHarness("l2-tag-retry", redisURL: proxied, redisURLOfB: redisURL)
        defer { Task { await harness.shutdown() } }
        let payees = SecondLevelGET(path: "/api/payees", key: "payees.list", domains: ["payees"])
        _ = try await harness.session(harness.a, .alice).source(of: payees)
        try await harness.waitForWrites(harness.a, 1)
        let attacker = try RedisAttacker(harness)
        #expect(try attacker.valueKeys().count == 1)

        proxy.cut(afterCommandContaining: "}t:")  // the first step of a tag clear names the tag sets
        await harness.session(harness.a, .alice).cacheManager.clearPayeesCache()

        #expect(proxy.cuts == 1)
        try await waitUntil(timeout: .seconds(5)) { try attacker.valueKeys().isEmpty }
        #expect(try attacker.keys(matching: "\(attacker.prefix){*}p:*").isEmpty)  // the pending set went with them
        // B saw no clear (no bus here): only Redis can keep it from serving the old list.
        #expect(try await harness.session(harness.b, .alice).source(of: payees).source == .network)
    }

    /// A cached read of the accounts under a key of its own (each one new to memory, so it reaches the second level).
    static func read(_ name: String) -> SecondLevelGET {
        SecondLevelGET(path: "/api/accounts", key: "accounts.\(name)")
    }
}

/// Second-level events, as an operator's log would receive them.
final class SecondLevelEventLog: Sendable {
    private let stored = Mutex<[SecondLevelEvent]>([])

    var events: [SecondLevelEvent] { stored.withLock { $0 } }

    @Sendable func append(_ event: SecondLevelEvent) {
        stored.withLock { $0.append(event) }
    }
}
