import CacheCore
import FixtureSupport
import Foundation
import RedisReplication
import Testing

@testable import UnifiedCache

@Suite("Value clears reach the whole fleet over the replication bus (real redis-server)")
struct ValueFleetTests {
    @Test("a hub-wide tag clear on one replica clears every session and the shared scope of the other")
    func fleetWideTagClear() async throws {
        let harness = try await SecondLevelHarness("values-fleet", replicating: true)
        defer { Task { await harness.shutdown() } }
        let onB = harness.session(harness.b, .alice).values
        let bobOnB = harness.session(harness.b, .bob).values
        let skip = ValueCacheOptions(secondLevel: .skipped)
        _ = try await onB.value(forKey: "dashboard", tags: ["accounts"], options: skip) { 1 }
        _ = try await onB.value(forKey: "profile", tags: ["profile"], options: skip) { 2 }
        _ = try await bobOnB.value(forKey: "dashboard", tags: ["accounts"], options: skip) { 3 }
        _ = try await harness.b.values.value(forKey: "rates", tags: ["accounts"], options: skip) { 4 }

        #expect(await harness.a.values.clearEverywhere(tag: "accounts") == 0)
        try await harness.waitUntilApplied(harness.b, 1)

        #expect(!harness.b.holdsValue("dashboard", in: onB.scope))
        #expect(!harness.b.holdsValue("dashboard", in: bobOnB.scope))
        #expect(!harness.b.holdsValue("rates", in: .shared))
        #expect(harness.b.holdsValue("profile", in: onB.scope))  // another tag stays
    }

    @Test("a session's tag and key clears on one replica reach that session on the other")
    func sessionClearsTravel() async throws {
        let harness = try await SecondLevelHarness("values-fleet-session", replicating: true)
        defer { Task { await harness.shutdown() } }
        let onA = harness.session(harness.a, .alice).values
        let onB = harness.session(harness.b, .alice).values
        let bobOnB = harness.session(harness.b, .bob).values
        let skip = ValueCacheOptions(secondLevel: .skipped)
        for values in [onB, bobOnB] {
            _ = try await values.value(forKey: "a", tags: ["accounts"], options: skip) { 1 }
            _ = try await values.value(forKey: "b", tags: ["cards"], options: skip) { 2 }
        }

        await onA.clear(tag: "accounts")
        await onA.clear(forKey: "b")
        try await harness.waitUntilApplied(harness.b, 2)

        #expect(!harness.b.holdsValue("a", in: onB.scope))
        #expect(!harness.b.holdsValue("b", in: onB.scope))
        #expect(harness.b.holdsValue("a", in: bobOnB.scope))
        #expect(harness.b.holdsValue("b", in: bobOnB.scope))
    }

    @Test("a logout on one replica ends the session's values on the other")
    func logoutTravels() async throws {
        let harness = try await SecondLevelHarness("values-fleet-logout", replicating: true)
        defer { Task { await harness.shutdown() } }
        _ = harness.session(harness.a, .alice)
        let onB = harness.session(harness.b, .alice).values
        _ = try await onB.value(forKey: "dashboard", options: .init(secondLevel: .skipped)) { 1 }

        await harness.a.endSession(id: "session-alice")
        try await harness.waitUntilApplied(harness.b, 1)

        #expect(!harness.b.holdsValue("dashboard", in: onB.scope))
    }
}
