import CacheCore
import FixtureSupport
import Foundation
import Testing

@testable import UnifiedCache

/// Eager refresh with a shared second level: the refresh asks the upstream rather than taking back the same aging
/// entry from Redis, and a replica whose peer already refreshed takes the peer's new entry instead.
@Suite("Eager refresh over a shared second level: the upstream once, then the refreshed entry for the fleet")
struct SecondLevelEagerRefreshTests {
    private let route = "GET /api/accounts"
    private var accounts: SecondLevelGET {
        var request = SecondLevelGET(path: "/api/accounts", key: "accountSummary.list")
        request.resilience = CacheResilience(eagerRefreshThreshold: 0.5)
        return request
    }

    @Test("A's refresh past the threshold asks the upstream; B's refresh then takes A's new entry from Redis")
    func refreshGoesUpstreamOnceForTheFleet() async throws {
        let harness = try await SecondLevelHarness("l2-eager")
        defer { Task { await harness.shutdown() } }
        let onA = harness.session(harness.a, .alice)
        let onB = harness.session(harness.b, .alice)
        #expect(try await onA.source(of: accounts).source == .network)
        try await harness.waitForWrites(harness.a, 1)
        #expect(try await onB.source(of: accounts).source == .cache)  // from the second level
        #expect(try await harness.counters().route(route) == 1)

        // Past half of the entry's life (its lifetime as stored: the upstream's max-age may shorten the request's).
        guard case .fresh(let entry) = harness.a.restStore.lookup("accountSummary.list", in: onA.scope),
            let expiresAt = entry.expiresAt
        else {
            Issue.record("A holds no fresh entry")
            return
        }
        let lifetime = expiresAt.duration(since: entry.storedAt)
        harness.clock.advance(by: lifetime * 0.55)
        #expect(try await onA.source(of: accounts).staleReason == .eagerRefresh)
        await onA.rest.waitForBackgroundRefreshes()
        #expect(try await harness.counters().route(route) == 2)
        try await harness.waitForWrites(harness.a, 2)

        let hitsBefore = harness.b.secondLevelStatistics?.hits ?? 0
        #expect(try await onB.source(of: accounts).staleReason == .eagerRefresh)
        await onB.rest.waitForBackgroundRefreshes()
        #expect(try await harness.counters().route(route) == 2)
        #expect(harness.b.secondLevelStatistics?.hits == hitsBefore + 1)
        // B's memory now holds A's refreshed entry: well before its new threshold, no refresh starts.
        harness.clock.advance(by: lifetime * 0.2)
        #expect(try await onB.source(of: accounts).staleReason == nil)
    }
}
