import CacheCore
import FixtureSupport
import Foundation
import RedisReplication
import Testing

@testable import UnifiedCache

@Suite("Values go to the sealed second level under the session's namespace (real redis-server)")
struct ValueSecondLevelTests {
    struct Other: Codable, Sendable, Equatable {
        var count: Int
    }

    @Test("a replica that starts cold reads a session's value from the second level, without a factory run")
    func coldReplicaReads() async throws {
        let harness = try await SecondLevelHarness("values-l2-cold")
        defer { Task { await harness.shutdown() } }
        let dashboard = Dashboard(owner: "alice", accountsBytes: 42, version: 3)
        let written = try await harness.session(harness.a, .alice).values.value(
            forKey: "dashboard", tags: ["accounts"], options: .init(duration: .seconds(60))
        ) { dashboard }
        try await harness.waitForWrites(harness.a, 1)

        let runs = CallCounter()
        let read = try await harness.session(harness.b, .alice).values.value(forKey: "dashboard") {
            runs.increment()
            return Dashboard(owner: "wrong", accountsBytes: 0, version: 0)
        }
        #expect(read == written)
        #expect(runs.count == 0)
        #expect(harness.b.values.statistics().secondLevelHits == 1)
        // Another user's session on the cold replica has a namespace of its own.
        let bob = try await harness.session(harness.b, .bob).values.value(forKey: "dashboard") {
            Dashboard(owner: "bob", accountsBytes: 0, version: 0)
        }
        #expect(bob.owner == "bob")
    }

    @Test("a value kept out of the second level is not read by another replica")
    func skippedStaysInMemory() async throws {
        let harness = try await SecondLevelHarness("values-l2-skip")
        defer { Task { await harness.shutdown() } }
        _ = try await harness.session(harness.a, .alice).values.value(
            forKey: "secret", options: .init(secondLevel: .skipped)
        ) { "only here" }
        _ = try await harness.session(harness.a, .alice).values.value(forKey: "marker") { "written" }
        try await harness.waitForWrites(harness.a, 1)

        let read = try await harness.session(harness.b, .alice).values.value(forKey: "secret") { "fresh" }
        #expect(read == "fresh")
        #expect(harness.a.secondLevelStatistics?.store.writes == 1)
    }

    @Test("a value the coder cannot decode from the second level is a counted miss, and the factory answers")
    func undecodableIsACountedMiss() async throws {
        let harness = try await SecondLevelHarness("values-l2-decode")
        defer { Task { await harness.shutdown() } }
        _ = try await harness.session(harness.a, .alice).values.value(forKey: "shape") {
            Dashboard(owner: "alice", accountsBytes: 1, version: 1)
        }
        try await harness.waitForWrites(harness.a, 1)

        let read = try await harness.session(harness.b, .alice).values.value(forKey: "shape") { Other(count: 5) }
        #expect(read == Other(count: 5))
        let statistics = harness.b.values.statistics()
        #expect(statistics.decodeFailures == 1)
        #expect(statistics.secondLevelHits == 0)
        #expect(statistics.factoryRuns == 1)
    }

    @Test("a session's tag clear reaches the second level: a cold replica runs the factory again")
    func tagClearReachesTheSecondLevel() async throws {
        let harness = try await SecondLevelHarness("values-l2-clear")
        defer { Task { await harness.shutdown() } }
        let onA = harness.session(harness.a, .alice).values
        _ = try await onA.value(forKey: "dashboard", tags: ["accounts"]) { 1 }
        try await harness.waitForWrites(harness.a, 1)

        await onA.clear(tag: "accounts")

        let read = try await harness.session(harness.b, .alice).values.value(forKey: "dashboard") { 2 }
        #expect(read == 2)
    }
}
