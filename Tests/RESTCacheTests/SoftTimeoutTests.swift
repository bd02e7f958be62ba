import FixtureSupport
import Foundation
import RESTCache
import Testing

/// Soft and hard timeouts over the real fixture, with answers held by the fixture so the upstream is surely slower
/// than the caller's patience.
@Suite("Soft and hard timeouts: a stale answer at once, the call completes in the background")
struct SoftTimeoutTests {
    private let route = "GET /api/accounts/101/balance"
    private let alice = CacheScope.session("alice")

    private let soft = CacheResilience(failSafeMaxDuration: .seconds(3_600), softTimeout: .milliseconds(100))

    private func isFresh(_ harness: Harness) -> Bool {
        if case .fresh = harness.store.lookup("balances.101", in: alice) { return true }
        return false
    }

    @Test("A slow upstream: the stale answer comes before the upstream answers, and the cache takes the new answer")
    func staleAtTheSoftTimeout() async throws {
        let harness = try await Harness("st-slow")
        let service = harness.service(configuration: .resilient(soft))
        _ = try await service.perform(with: ResilientBalanceRequest()).value()
        harness.clock.advance(by: .seconds(61))
        try await harness.tenant.holdAnswers(route: route)

        let served = try await service.performWithSource(with: ResilientBalanceRequest()).value()
        #expect(served.isStale)
        #expect(served.staleReason == .softTimeout)
        #expect(!isFresh(harness))
        // The call went on: it reaches the upstream, lands once released, and the entry is fresh again.
        try await waitUntil { try await harness.counters().route(route) == 2 }
        try await harness.tenant.releaseHeldAnswers()
        try await waitUntil { isFresh(harness) }
        #expect(service.shared.staleAnswers.count(.softTimeout) == 1)
        let next = try await service.performWithSource(with: ResilientBalanceRequest()).value()
        #expect(next.source == .cache)
        #expect(try await harness.counters().route(route) == 2)
    }

    @Test("Nothing to serve: the hard timeout ends the call with the transport's timeout error")
    func hardTimeoutWithNothingToServe() async throws {
        let harness = try await Harness("st-hard")
        let service = harness.service(configuration: .resilient(CacheResilience(hardTimeout: .milliseconds(200))))
        try await harness.tenant.holdAnswers(route: route)
        let failure = await service.perform(with: ResilientBalanceRequest()).failure
        guard case .network(let error)? = failure else {
            Issue.record("expected a network timeout, got \(String(describing: failure))")
            return
        }
        #expect(error.code == .timedOut)
        try await harness.tenant.releaseHeldAnswers()
    }

    @Test("Invalid per-call options fail the call before anything is sent")
    func invalidOptionsAreRefused() async throws {
        let harness = try await Harness("st-invalid")
        let service = harness.service()
        let request = ResilientBalanceRequest(resilience: CacheResilience(eagerRefreshThreshold: 1.5))
        let failure = await service.perform(with: request).failure
        guard case .invalidRequest(let error)? = failure else {
            Issue.record("expected an invalid request, got \(String(describing: failure))")
            return
        }
        #expect(error.code == .invalidConfiguration)
        #expect(try await harness.counters().route(route) == 0)
    }

    /// A service whose stale entry was just served after the soft timeout, its upstream call held at the fixture.
    private func staleAnswerWithCallHeld(_ harness: Harness) async throws -> APIService {
        let service = harness.service(configuration: .resilient(soft))
        _ = try await service.perform(with: ResilientBalanceRequest()).value()
        harness.clock.advance(by: .seconds(61))
        try await harness.tenant.holdAnswers(route: route)
        #expect(try await service.performWithSource(with: ResilientBalanceRequest()).value().isStale)
        try await waitUntil { try await harness.counters().route(route) == 2 }
        return service
    }

    @Test("A background completion after the scope was cleared is not stored")
    func clearWinsOverBackgroundCompletion() async throws {
        let harness = try await Harness("st-clear")
        let service = try await staleAnswerWithCallHeld(harness)

        harness.store.clear(scope: alice)
        try await harness.tenant.releaseHeldAnswers()
        try await waitUntil { service.requestStates.inFlightCount == 0 }
        #expect(harness.store.entryCount(in: alice) == 0)
    }

    @Test("A background completion after the session ended is not stored")
    func logoutWinsOverBackgroundCompletion() async throws {
        let harness = try await Harness("st-logout")
        let service = try await staleAnswerWithCallHeld(harness)

        service.close()
        try await harness.tenant.releaseHeldAnswers()
        try await waitUntil { service.requestStates.inFlightCount == 0 }
        // The stale entry is still the one from before: the answer was delivered, not stored.
        guard case .stale = harness.store.peek("balances.101", in: alice) else {
            Issue.record("the closed service's background completion replaced the entry")
            return
        }
    }
}
