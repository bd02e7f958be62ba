import FixtureSupport
import Foundation
import RESTCache
import Testing

@Suite("Concurrent identical requests make one upstream call")
struct DeduplicationTests {
    /// The flight of alice's `AccountsRequest`, whose waiters the tests count.
    static let accountsFlight = CachedRequestStateManager.Key(scope: .session("alice"), key: "accountSummary.accounts")

    @Test("100 concurrent identical reads make 1 upstream call and all get the answer")
    func hundredConcurrentReads() async throws {
        let harness = try await Harness("dedup")
        try await harness.tenant.holdAnswers(route: "GET /api/accounts")
        let service = harness.service()
        let group = Task {
            await withTaskGroup(of: [Account]?.self) { group in
                for _ in 0..<100 { group.addTask { try? await service.perform(with: AccountsRequest()).get() } }
                var all: [[Account]?] = []
                for await result in group { all.append(result) }
                return all
            }
        }
        // Every read joined the one call in flight before its answer goes.
        try await waitUntil { service.requestStates.waiterCount(for: Self.accountsFlight) == 100 }
        try await harness.tenant.releaseHeldAnswers()
        let results = await group.value
        #expect(results.count == 100)
        #expect(results.allSatisfy { $0?.map(\.id) == ["101", "102"] })
        #expect(try await harness.counters().route("GET /api/accounts") == 1)
        #expect(harness.store.statistics(for: .session("alice")).deduplicatedJoins == 99)
        let release = service.requestStates.releaseStatistics
        #expect(release.sharedFlights == 1)
        #expect(release.waitersReleased == 100)
        #expect(release.maximumReleaseDuration > .zero)
    }

    @Test("an upstream error is shared by every waiter, and the next request retries")
    func errorsAreSharedAndRetried() async throws {
        let harness = try await Harness("deduperr")
        try await harness.tenant.holdAnswers(route: "GET /api/accounts")
        try await harness.tenant.inject(.status(503), route: "GET /api/accounts")
        let service = harness.service()
        let group = Task {
            await withTaskGroup(of: Int?.self) { group in
                for _ in 0..<20 { group.addTask { await service.perform(with: AccountsRequest()).failure?.status } }
                var all: [Int?] = []
                for await status in group { all.append(status) }
                return all
            }
        }
        try await waitUntil { service.requestStates.waiterCount(for: Self.accountsFlight) == 20 }
        try await harness.tenant.releaseHeldAnswers()
        let statuses = await group.value
        #expect(statuses.allSatisfy { $0 == 503 })
        #expect(try await harness.counters().route("GET /api/accounts") == 1)

        try await harness.tenant.setLatency(milliseconds: 0)
        #expect(try await service.perform(with: AccountsRequest()).value().count == 2)
        #expect(try await harness.counters().route("GET /api/accounts") == 2)
    }

    @Test("one waiter cancelling does not cancel the others or the upstream call")
    func cancellingOneWaiter() async throws {
        let harness = try await Harness("dedupcancel")
        try await harness.tenant.holdAnswers(route: "GET /api/accounts")
        let service = harness.service()
        let leader = Task { await service.perform(with: AccountsRequest()) }
        try await waitForCount(harness, "GET /api/accounts", 1)
        let quitter = Task { await service.perform(with: AccountsRequest()) }
        let stayer = Task { await service.perform(with: AccountsRequest()) }
        try await waitUntil { service.requestStates.waiterCount(for: Self.accountsFlight) == 3 }
        quitter.cancel()

        guard case .failure(.cancelled) = await quitter.value else {
            Issue.record("the cancelled waiter should fail with .cancelled")
            return
        }
        try await harness.tenant.releaseHeldAnswers()
        #expect(try await leader.value.value().count == 2)
        #expect(try await stayer.value.value().count == 2)
        #expect(try await harness.counters().route("GET /api/accounts") == 1)
    }
}

/// Waits until the fixture server has received `count` requests on a route.
func waitForCount(_ harness: Harness, _ route: String, _ count: Int) async throws {
    try await waitUntil { try await harness.counters().route(route) >= count }
}
