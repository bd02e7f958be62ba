import CacheCore
import FixtureSupport
import Foundation
import Testing

@testable import UnifiedCache

@Suite("A clear wins over a factory still running: its value is returned, never stored")
struct ValueClearRaceTests {
    /// Starts a factory, clears while it runs, lets it finish; returns whether its value was stored anyway.
    private func race(
        _ values: CachedValues, key: String, hub: CacheHub, clear: @Sendable () async -> Void
    ) async throws -> Bool {
        let entered = Latch()
        let release = Latch()
        let call = Task {
            try await values.value(forKey: key, tags: ["accounts"]) {
                entered.open()
                await release.wait()
                return key
            }
        }
        await entered.wait()
        await clear()
        release.open()
        #expect(try await call.value == key)  // the caller still gets its value
        return hub.holdsValue(key, in: values.scope)
    }

    @Test("1,000 logouts and 1,000 tag clears racing running factories: 0 writes after the clear")
    func logoutAndTagClearRaces() async throws {
        let harness = try await FacadeHarness("values-races")
        let hub = harness.hub
        var writesAfterClear = 0
        for index in 0..<1_000 {
            let id = "race-\(index)"
            let session = hub.session(id: id, principal: VerifiedPrincipal("u\(index)"), credentials: .bearer("t"))
            if try await race(session.values, key: "k", hub: hub, clear: { await hub.endSession(id: id) }) {
                writesAfterClear += 1
            }
        }
        let values = harness.session(.alice).values
        for index in 0..<1_000 {
            if try await race(values, key: "k\(index)", hub: hub, clear: { await values.clear(tag: "accounts") }) {
                writesAfterClear += 1
            }
        }
        #expect(writesAfterClear == 0)
        #expect(hub.values.statistics().discardedAfterClear == 2_000)
    }

    @Test("a clear by key and a hub-wide tag clear also stop a running factory's write")
    func keyAndHubWideClears() async throws {
        let harness = try await FacadeHarness("values-races-key")
        let hub = harness.hub
        let values = harness.session(.alice).values
        #expect(try await !race(values, key: "a", hub: hub, clear: { await values.clear(forKey: "a") }))
        #expect(
            try await !race(values, key: "b", hub: hub, clear: { await hub.values.clearEverywhere(tag: "accounts") }))
        #expect(
            try await !race(hub.values.shared, key: "c", hub: hub) {
                await hub.values.clearEverywhere(tag: "accounts")
            })
        // Without a clear the same factory's value is stored: the races above are what kept it out.
        #expect(try await race(values, key: "d", hub: hub, clear: {}))
    }
}
