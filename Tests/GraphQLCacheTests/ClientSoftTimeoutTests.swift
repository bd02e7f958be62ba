import CacheCore
import FixtureSupport
import GraphQLCache
import Testing

@Suite("GraphQL client: soft and hard timeouts")
struct ClientSoftTimeoutTests {
    private let softTimeout = CacheResilience(
        failSafeMaxDuration: .seconds(3600), softTimeout: .milliseconds(100))

    @Test(
        "an upstream held past a 100 ms soft timeout: the stale answer comes while it is held, and the store holds the new answer once it lands"
    )
    func staleBeforeTheSlowAnswer() async throws {
        let harness = try await ClientHarness("gqlsofttimeout")
        let client = try harness.resilientClient(softTimeout)
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        harness.clock.advance(by: .seconds(90))
        try await harness.tenant.holdAnswers(operation: "AccountSummary")
        // The upstream answers only once released below: an answer now can only be the stale one, whatever the
        // machine's load does to the soft timeout's timer.
        let answer = try await client.fetch(query: AccountSummaryQuery()).value()
        #expect(answer.source == .cache)
        #expect(answer.isStale)
        #expect(answer.staleReason == .softTimeout)
        #expect(answer.age == .seconds(90))
        try await harness.tenant.releaseHeldAnswers()
        // The call goes on in the background and lands in the store.
        try await waitUntil {
            let cached = await client.fetch(query: AccountSummaryQuery(), cachePolicy: .returnCacheDataDontFetch)
            return (try? cached.get().isStale) == false
        }
        let landed = try await client.fetch(query: AccountSummaryQuery()).value()
        #expect(landed.source == .cache)
        #expect(landed.age == .zero)
        #expect(landed.staleReason == nil)
        #expect(try await harness.count("AccountSummary") == 2)
    }

    @Test("many callers past the soft timeout share one background call")
    func backgroundCallIsShared() async throws {
        let harness = try await ClientHarness("gqlsofttimeoutshared")
        let client = try harness.resilientClient(softTimeout)
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        harness.clock.advance(by: .seconds(90))
        try await harness.tenant.holdAnswers(operation: "AccountSummary")
        let answers = await concurrentSummaries(client, count: 100)
        #expect(answers.allSatisfy { (try? $0.get().staleReason) == .softTimeout })
        try await harness.tenant.releaseHeldAnswers()
        try await waitUntil { client.inFlightRequestCount == 0 }
        #expect(try await harness.count("AccountSummary") == 2)
    }

    @Test("with nothing cached the hard timeout ends the call with a typed timedOut error; the call still lands")
    func hardTimeoutWithNothingToServe() async throws {
        let harness = try await ClientHarness("gqlhardtimeout")
        let client = try harness.resilientClient(
            CacheResilience(
                failSafeMaxDuration: .seconds(3600), softTimeout: .milliseconds(50), hardTimeout: .milliseconds(200)))
        try await harness.tenant.holdAnswers(operation: "AccountSummary")
        let error = try #require(await client.fetch(query: AccountSummaryQuery()).failure)
        #expect(error.code == .timedOut)
        try await harness.tenant.releaseHeldAnswers()
        try await waitUntil { harness.store.recordCount(in: client.scope) > 0 }
        let cached = try await client.fetch(query: AccountSummaryQuery(), cachePolicy: .returnCacheDataDontFetch)
            .value()
        #expect(!cached.isStale)
        #expect(try await harness.count("AccountSummary") == 1)
    }

    @Test("the hard timeout serves a stale answer within the fail-safe window instead of failing")
    func hardTimeoutWithFailSafe() async throws {
        let harness = try await ClientHarness("gqlhardtimeoutstale")
        let client = try harness.resilientClient(
            CacheResilience(failSafeMaxDuration: .seconds(3600), hardTimeout: .milliseconds(100)))
        // Cached by a client of the same session without a hard timeout: the first call may take longer than one.
        _ = try await harness.resilientClient(.none).fetch(query: AccountSummaryQuery()).value()
        harness.clock.advance(by: .seconds(90))
        try await harness.tenant.holdAnswers(operation: "AccountSummary")
        let answer = try await client.fetch(query: AccountSummaryQuery()).value()
        #expect(answer.isStale)
        #expect(answer.staleReason == .failSafe)
        try await harness.tenant.releaseHeldAnswers()
    }

    @Test("cancelling a caller never cancels the upstream call another caller waits on")
    func cancellingOneCaller() async throws {
        let harness = try await ClientHarness("gqltimeoutcancel")
        let client = try harness.resilientClient(CacheResilience(hardTimeout: .seconds(60)))
        try await harness.tenant.holdAnswers(operation: "AccountSummary")
        let quitter = Task { await client.fetch(query: AccountSummaryQuery()) }
        let stayer = Task { await client.fetch(query: AccountSummaryQuery()) }
        try await waitUntil { client.inFlightWaiterCount == 2 }
        quitter.cancel()
        #expect(await quitter.value.failure?.code == .cancelled)
        try await harness.tenant.releaseHeldAnswers()
        let answer = try await stayer.value.value()
        #expect(answer.source == .network)
        #expect(answer.wasStored)
        #expect(try await harness.count("AccountSummary") == 1)
    }
}
