import FixtureSupport
import Foundation
import GraphQLCache
import RESTCache
import Testing
import UnifiedCache

@Suite("A session that has ended refuses work: nothing is fetched, sent or stored through it")
struct EndedSessionTests {
    private let accounts = CachedGET(path: "/api/accounts", key: "accountSummary.list")
    private let summary = UntypedGraphQLOperation(
        document: "query AccountSummary { accounts { id name } }", operationName: "AccountSummary")
    private let payment = UntypedGraphQLOperation(
        document: """
            mutation MakePayment($input: PaymentInput!) {
              makePayment(input: $input) { account { id balance } transaction { id amount } }
            }
            """,
        operationName: "MakePayment",
        variables: ["input": ["fromAccountId": "101", "payeeId": "payee-alice-1", "amount": 5.0, "reference": "t"]]
    )

    @Test("after logout a held session's REST read fails with closed, sends nothing, and a new session misses")
    func restReadAfterLogout() async throws {
        let harness = try await FacadeHarness("endedrest")
        let alice = harness.session(.alice)
        _ = try await alice.rest.perform(with: accounts).get()
        #expect(await harness.hub.endSession(id: "session-alice") != nil)

        expectClosed(await alice.rest.perform(with: accounts))
        expectClosed(await alice.rest.performWithSource(with: accounts))
        #expect(try await harness.counters().route("GET /api/accounts") == 1)
        #expect(harness.hub.restStore.entryCount(in: alice.scope) == 0)

        let again = harness.session(.alice)
        #expect(again !== alice)
        #expect(again.scope == alice.scope)
        #expect(try await again.rest.performWithSource(with: accounts).get().source == .network)
        #expect(try await again.rest.performWithSource(with: accounts).get().source == .cache)
        #expect(try await harness.counters().route("GET /api/accounts") == 2)
    }

    @Test("after logout a held session's GraphQL query fails with closed, sends nothing, and a new session misses")
    func graphQLQueryAfterLogout() async throws {
        let harness = try await FacadeHarness("endedgql")
        let alice = harness.session(.alice)
        #expect(try await alice.graphQL.fetch(operation: summary).get().source == .network)
        #expect(await harness.hub.endSession(id: "session-alice") != nil)

        expectClosed(await alice.graphQL.fetch(operation: summary))
        expectClosed(await alice.graphQL.fetch(operation: summary, cachePolicy: .returnCacheDataDontFetch))
        var streamed: [Result<GraphQLResult<GraphQLJSONObject>, GraphQLCacheError>] = []
        for await result in alice.graphQL.fetchResults(operation: summary, cachePolicy: .returnCacheDataAndFetch) {
            streamed.append(result)
        }
        #expect(streamed.count == 1)
        if let only = streamed.first { expectClosed(only) }
        #expect(try await harness.counters().operation("AccountSummary") == 1)
        #expect(harness.hub.graphQLStore.recordCount(in: alice.scope) == 0)

        let again = harness.session(.alice)
        #expect(again.scope == alice.scope)
        #expect(try await again.graphQL.fetch(operation: summary).get().source == .network)
        #expect(try await again.graphQL.fetch(operation: summary).get().source == .cache)
        #expect(try await harness.counters().operation("AccountSummary") == 2)
    }

    @Test("a GraphQL mutation or a REST POST through an ended session is never sent upstream")
    func mutationsAfterLogoutAreNotSent() async throws {
        let harness = try await FacadeHarness("endedmutation")
        let alice = harness.session(.alice)
        _ = try await alice.rest.perform(with: accounts).get()
        #expect(await harness.hub.endSession(id: "session-alice") != nil)

        expectClosed(await alice.graphQL.perform(operation: payment))
        expectClosed(await alice.rest.perform(with: AddPayee()))

        let counters = try await harness.counters()
        #expect(counters.operation("MakePayment") == 0)
        #expect(counters.route("POST /api/payees") == 0)
        #expect(counters.requests == 1)
    }

    @Test("a live session's mutations are sent: the refusal comes from the end, not from the requests")
    func liveSessionMutationsAreSent() async throws {
        let harness = try await FacadeHarness("endedlivemutation")
        let alice = harness.session(.alice)
        #expect(await alice.graphQL.perform(operation: payment).isSuccess)
        _ = try await alice.rest.perform(with: AddPayee()).get()
        let counters = try await harness.counters()
        #expect(counters.operation("MakePayment") == 1)
        #expect(counters.route("POST /api/payees") == 1)
    }

    @Test("a session ended by idle expiry is refused the same way")
    func idleExpiredSessionIsRefused() async throws {
        let settings = try SettingsStore(settings: CacheSettings(sessions: .init(idleTimeoutSeconds: 60)))
        let harness = try await FacadeHarness("endedidle", settings: settings)
        let alice = harness.session(.alice)
        _ = try await alice.rest.perform(with: accounts).get()
        #expect(await alice.graphQL.fetch(operation: summary).isSuccess)
        harness.clock.advance(seconds: 61)
        #expect(await harness.hub.expireIdleSessions() == 1)

        expectClosed(await alice.rest.perform(with: accounts))
        expectClosed(await alice.graphQL.fetch(operation: summary))
        let counters = try await harness.counters()
        #expect(counters.route("GET /api/accounts") == 1)
        #expect(counters.operation("AccountSummary") == 1)
        #expect(harness.hub.restStore.entryCount(in: alice.scope) == 0)
        #expect(harness.hub.graphQLStore.recordCount(in: alice.scope) == 0)
    }

    @Test("a session ended because another principal presented its id is refused the same way")
    func sessionEndedByAnotherPrincipalIsRefused() async throws {
        let harness = try await FacadeHarness("endedprincipal")
        let hub = harness.hub
        let alice = hub.session(
            id: "cookie-1", principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice"))
        _ = try await alice.rest.perform(with: accounts).get()
        _ = hub.session(id: "cookie-1", principal: VerifiedPrincipal("bob"), credentials: .bearer("token-bob"))

        expectClosed(await alice.rest.perform(with: accounts))
        expectClosed(await alice.graphQL.fetch(operation: summary))
        let counters = try await harness.counters()
        #expect(counters.tokens("GET /api/accounts") == ["token-alice": 1])
        #expect(counters.tokens("op:AccountSummary").isEmpty)
        #expect(hub.restStore.entryCount(in: alice.scope) == 0)
    }

    @Test("a session evicted by the live-session bound is refused the same way")
    func sessionEvictedByTheBoundIsRefused() async throws {
        let settings = try SettingsStore(settings: CacheSettings(sessions: .init(maxSessions: 1)))
        let harness = try await FacadeHarness("endedbound", settings: settings)
        let alice = harness.session(.alice)
        _ = try await alice.rest.perform(with: accounts).get()
        _ = harness.session(.bob)

        expectClosed(await alice.rest.perform(with: accounts))
        #expect(try await harness.counters().route("GET /api/accounts") == 1)
        #expect(harness.hub.restStore.entryCount(in: alice.scope) == 0)
    }

    @Test("a session never used before it ended is refused too, and clearing through it still works")
    func neverUsedSessionIsRefused() async throws {
        let harness = try await FacadeHarness("endedunused")
        let alice = harness.session(.alice)
        #expect(await harness.hub.endSession(id: "session-alice") != nil)

        expectClosed(await alice.rest.perform(with: accounts))
        expectClosed(await alice.graphQL.fetch(operation: summary))
        expectClosed(await alice.graphQL.perform(operation: payment))
        #expect(try await harness.counters().requests == 0)
        #expect(harness.hub.restStore.entryCount(in: alice.scope) == 0)
        #expect(harness.hub.graphQLStore.recordCount(in: alice.scope) == 0)
        #expect(await alice.cacheManager.clearAllCaches().succeeded)
    }

    @Test("a request in flight across the logout gets its answer, and nothing of it is stored")
    func inFlightAcrossLogoutIsDeliveredNotStored() async throws {
        let harness = try await FacadeHarness("endedinflight")
        let alice = harness.session(.alice)
        let reads = try await HeldReads(of: alice, in: harness)
        #expect(await harness.hub.endSession(id: "session-alice") != nil)

        try await harness.tenant.releaseHeldAnswers()
        #expect(try await reads.rest.value.get().source == .network)
        #expect(try await reads.graphQL.value.get().source == .network)
        #expect(harness.hub.restStore.entryCount(in: alice.scope) == 0)
        #expect(harness.hub.graphQLStore.recordCount(in: alice.scope) == 0)
        let again = harness.session(.alice)
        #expect(try await again.rest.performWithSource(with: accounts).get().source == .network)
        #expect(try await again.graphQL.fetch(operation: summary).get().source == .network)
    }

    private func expectClosed<Value>(
        _ result: Result<Value, API<EmptyErrorBody>>, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case .failure(.invalidRequest(let error)) = result else {
            Issue.record("expected the closed error, got \(result)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == .closed, sourceLocation: sourceLocation)
        #expect(error.message.contains("ended"), sourceLocation: sourceLocation)
    }

    private func expectClosed<Value>(
        _ result: Result<Value, GraphQLCacheError>, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard case .failure(let error) = result else {
            Issue.record("expected the closed error, got a success", sourceLocation: sourceLocation)
            return
        }
        #expect(error.code == .closed, sourceLocation: sourceLocation)
        #expect(!error.message.contains("session-alice"), sourceLocation: sourceLocation)
    }
}
