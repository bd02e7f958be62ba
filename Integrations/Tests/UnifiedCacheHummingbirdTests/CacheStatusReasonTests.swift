import Foundation
import Hummingbird
import HummingbirdTesting
import IntegrationFixtures
import Testing
import UnifiedCache
import UnifiedCacheHummingbird

/// A balance read with fail-safe for an hour and eager refresh at half its 30 s life.
private struct ResilientBalanceRequest: RequestType {
    typealias Response = Balance
    var path: String { "/api/accounts/101/balance" }
    var cache: RequestCache? { RequestCache(key: "balance.101", timeout: .seconds(30)) }
    var resilience: CacheResilience? {
        CacheResilience(failSafeMaxDuration: .seconds(3_600), eagerRefreshThreshold: 0.5)
    }
}

@Suite("Cache-Status says which resilience option decided an answer")
struct CacheStatusReasonTests {
    private let route = "GET /api/accounts/101/balance"

    private func router(_ harness: HummingbirdHarness) -> Router<AppContext> {
        let router = buildRouter(hub: harness.hub, upstream: harness.tenant.baseURL)
        router.get("/me/balance") { _, context in try await context.cache.response(for: ResilientBalanceRequest()) }
        return router
    }

    @Test("a hit late in its life says eager-refresh; with the upstream down, a stale answer says fail-safe")
    func reasonsReachTheHeader() async throws {
        let harness = try await HummingbirdHarness("hb-reasons")
        try await harness.application(router(harness)).test(.live) { client in
            #expect(try await client.get("/me/balance", as: .alice).cacheStatus == "ucache-l1; fwd=uri-miss")
            harness.clock.advance(by: .seconds(10))
            #expect(try await client.get("/me/balance", as: .alice).cacheStatus == "ucache-l1; hit")
            harness.clock.advance(by: .seconds(6))  // 16 s of 30: past half its life
            let late = try await client.get("/me/balance", as: .alice)
            #expect(late.cacheStatus == "ucache-l1; hit; detail=eager-refresh")
            try await waitUntil { try await harness.tenant.counters().route(route) == 2 }

            try await harness.tenant.inject(.status(503), route: route, count: 5)
            harness.clock.advance(by: .seconds(31))  // past the refreshed answer's life
            let down = try await client.get("/me/balance", as: .alice)
            #expect(down.status == .ok)
            #expect(down.cacheStatus == "ucache-l1; hit; detail=stale-fail-safe")
        }
        await harness.hub.shutdown()
    }

    @Test("the least cached read decides the header, with its own reason")
    func leastCachedReadDecides() {
        let recorder = CacheStatusRecorder()
        recorder.record(.hit, reason: .eagerRefresh)
        #expect(recorder.fieldValue == "ucache-l1; hit; detail=eager-refresh")
        recorder.record(.stale, reason: .failSafe)
        recorder.record(.stale, reason: .softTimeout)
        recorder.record(.hit)
        #expect(recorder.fieldValue == "ucache-l1; hit; detail=stale-fail-safe")
        recorder.record(.fetched)
        #expect(recorder.fieldValue == "ucache-l1; fwd=uri-miss")

        let plain = CacheStatusRecorder()
        plain.record(.stale)
        #expect(plain.fieldValue == "ucache-l1; hit; detail=stale")
    }
}
