import CacheCore
import FixtureSupport
import Foundation
import RESTCache
import Testing

@Suite("A closed service refuses work: nothing is sent, read or stored")
struct ServiceCloseTests {
    private let balanceRoute = "GET /api/accounts/101/balance"

    @Test("every policy and a mutation fail with the closed error, and nothing reaches the upstream")
    func closedServiceRefusesEverything() async throws {
        let harness = try await Harness("closerefuse")
        let service = harness.service()
        #expect(!service.isClosed)
        service.close()
        #expect(service.isClosed)

        let policies: [RESTCachePolicy] = [
            .cacheFirst, .networkOnly, .networkFirst, .cacheOnly, .noCache,
            .staleWhileRevalidate(gracePeriod: .seconds(60)), .staleIfError(maximumStaleness: .seconds(60)),
        ]
        for policy in policies {
            expectClosed(await service.perform(with: BalanceRequest(accountId: "101", cachePolicy: policy)))
        }
        expectClosed(await service.performWithSource(with: AccountsRequest()))
        let payee = AddPayeeRequest.Body(name: "New", bsb: "000-000", accountNumber: "1")
        expectClosed(await service.perform(with: AddPayeeRequest(body: payee)))
        expectClosed(await service.perform(with: PayeesRequest()))

        #expect(try await harness.counters().requests == 0)
        #expect(harness.store.entryCount(in: .session("alice")) == 0)
    }

    @Test("an answer cached before close is not served after it, and close clears nothing")
    func closedServiceReadsNothing() async throws {
        let harness = try await Harness("closeread")
        let service = harness.service()
        #expect(try await service.performWithSource(with: AccountsRequest()).value().source == .network)
        #expect(try await service.performWithSource(with: AccountsRequest()).value().source == .cache)
        service.close()

        expectClosed(await service.performWithSource(with: AccountsRequest()))
        #expect(harness.store.entryCount(in: .session("alice")) == 1)
        #expect(try await harness.counters().route("GET /api/accounts") == 1)
    }

    @Test("an answer in flight at close is delivered but not stored, while an open service stores its own")
    func inFlightAtCloseIsDeliveredNotStored() async throws {
        let harness = try await Harness("closeflight", transport: .init(enableHTTP2: false))
        try await harness.tenant.holdAnswers(route: "GET /api/accounts")
        let alice = harness.service(for: .alice)
        let bob = harness.service(for: .bob)
        let aliceFlight = Task { await alice.performWithSource(with: AccountsRequest()) }
        let bobFlight = Task { await bob.performWithSource(with: AccountsRequest()) }
        try await waitForCount(harness, "GET /api/accounts", 2)
        alice.close()

        try await harness.tenant.releaseHeldAnswers()
        #expect(try await aliceFlight.value.value().source == .network)
        #expect(try await bobFlight.value.value().source == .network)
        #expect(harness.store.entryCount(in: .session("alice")) == 0)
        #expect(harness.store.entryCount(in: .session("bob")) == 1)
    }

    @Test("a stale-while-revalidate refresh in flight at close does not freshen the entry")
    func backgroundRefreshAtCloseIsNotStored() async throws {
        let harness = try await Harness("closeswr")
        let service = harness.service(configuration: .init(honorsHTTPCaching: false))
        let policy = RESTCachePolicy.staleWhileRevalidate(gracePeriod: .seconds(300))
        let request = BalanceRequest(accountId: "101", timeout: .seconds(60), cachePolicy: policy)
        _ = try await service.perform(with: request).value()
        harness.clock.advance(by: .seconds(90))
        try await harness.tenant.holdAnswers(route: balanceRoute)

        #expect(try await service.performWithSource(with: request).value().source == .staleCache)
        try await waitForCount(harness, balanceRoute, 2)
        service.close()
        try await harness.tenant.releaseHeldAnswers()
        await service.waitForBackgroundRefreshes()

        let cache = CacheManager(store: harness.store, scope: .session("alice"))
        let found = cache.peek("balances.101", in: .session("alice"))
        guard case .stale = found else {
            Issue.record("expected the entry still stale, found \(found)")
            return
        }
        #expect(try await harness.counters().route(balanceRoute) == 2)
    }

    private func expectClosed<Value, ErrorBody>(
        _ result: Result<Value, API<ErrorBody>>, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case .failure(.invalidRequest(let error)) = result else {
            Issue.record("expected the closed error, got \(result)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == .closed, sourceLocation: sourceLocation)
        #expect("\(error)".contains("ended"), sourceLocation: sourceLocation)
        #expect(!"\(error)".contains("alice"), sourceLocation: sourceLocation)
    }
}
