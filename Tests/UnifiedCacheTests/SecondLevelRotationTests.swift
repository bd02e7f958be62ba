import FixtureSupport
import Foundation
import Testing

@testable import UnifiedCache

/// A rolling rotation of the second-level secret: one replica already on `new,old`, another still on `old,new`.
@Suite("A rolling rotation of the second-level secret loses no clear and serves nothing wrong")
struct SecondLevelRotationTests {
    private let accounts = AccountIDs()
    static let old = Array(repeating: UInt8(0x31), count: 32)
    static let new = Array(repeating: UInt8(0x32), count: 32)

    static func harness(_ label: String) async throws -> SecondLevelHarness {
        try await SecondLevelHarness(
            label, replicating: true,
            secrets: (a: try SecondLevelSecret(keys: [new, old]), b: try SecondLevelSecret(keys: [old, new])))
    }

    @Test("replicas naming with different current keys do not share values: misses, never rejections")
    func valuesDuringRotation() async throws {
        let harness = try await Self.harness("l2-rotation-values")
        defer { Task { await harness.shutdown() } }
        _ = try await harness.session(harness.a, .alice).answer(accounts)
        try await harness.waitForWrites(harness.a, 1)

        #expect(try await harness.session(harness.b, .alice).answer(accounts).source == .network)
        #expect(harness.b.secondLevelStatistics?.store.misses == 1)
        #expect(harness.b.secondLevelStatistics?.rejected.total == 0)
        #expect(try await harness.counters().route("GET /api/accounts") == 2)
    }

    @Test("a logout on the replica already on the new key is honoured by the one still on the old key")
    func logoutOnTheNewKey() async throws {
        try await logout(on: \.a, "l2-rotation-logout-new")
    }

    @Test("a logout on the replica still on the old key is honoured by the one already on the new key")
    func logoutOnTheOldKey() async throws {
        try await logout(on: \.b, "l2-rotation-logout-old")
    }

    /// Both replicas hold alice's answer in the second level (each under its own key's names); a logout on one
    /// leaves nothing of it for a fresh session on either.
    private func logout(on replica: KeyPath<SecondLevelHarness, CacheHub>, _ label: String) async throws {
        let harness = try await Self.harness(label)
        defer { Task { await harness.shutdown() } }
        for hub in [harness.a, harness.b] {
            #expect(try await harness.session(hub, .alice).answer(accounts).source == .network)
            try await harness.waitForWrites(hub, 1)
        }
        let loggingOut = harness[keyPath: replica]
        let other = loggingOut === harness.a ? harness.b : harness.a

        _ = await loggingOut.endSession(id: "session-alice")
        try await harness.waitUntilApplied(other, 1)

        for hub in [harness.a, harness.b] {
            #expect(try await harness.session(hub, .alice).answer(accounts).source == .network)
        }
        #expect(try await harness.counters().route("GET /api/accounts") == 4)
    }
}
