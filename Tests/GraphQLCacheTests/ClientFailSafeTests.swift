import CacheCore
import FixtureSupport
import GraphQLCache
import Testing

@Suite("GraphQL client: fail-safe answers while the upstream fails")
struct ClientFailSafeTests {
    private let hourOfFailSafe = CacheResilience(
        failSafeMaxDuration: .seconds(3600), failSafeThrottleDuration: .seconds(30))

    @Test("an upstream down for a simulated hour is answered from fail-safe for the whole window, then errors")
    func downForAnHour() async throws {
        let harness = try await ClientHarness("gqlfailsafehour")
        let client = try harness.resilientClient(hourOfFailSafe)
        let first = try await client.fetch(query: AccountSummaryQuery()).value()
        #expect(first.source == .network)
        try await harness.failEveryRequest("AccountSummary")
        for minutes in stride(from: 5, through: 60, by: 5) {
            harness.clock.advance(by: .seconds(300))
            harness.purgeLikeMaintenance(client)
            let answer = try await client.fetch(query: AccountSummaryQuery()).value()
            #expect(answer.source == .cache)
            #expect(answer.isStale)
            #expect(answer.staleReason == .failSafe)
            #expect(answer.age == .seconds(minutes * 60))
            #expect(answer.data == first.data)
        }
        // 60 s of freshness and 3,600 s of fail-safe: one second later the window has ended.
        harness.clock.advance(by: .seconds(61))
        harness.purgeLikeMaintenance(client)
        #expect(harness.store.recordCount(in: client.scope) > 0)
        let error = try #require(await client.fetch(query: AccountSummaryQuery()).failure)
        #expect(error.code == .httpStatus)
        #expect(error.httpStatus == 503)
        // One request per read: each came after the 30 s throttle of the one before.
        #expect(try await harness.count("AccountSummary") == 1 + 12 + 1)
        // Past the window and the grace, maintenance takes the records.
        harness.clock.advance(by: .seconds(60))
        let report = try #require(harness.purgeLikeMaintenance(client))
        #expect(report.records > 0)
        #expect(harness.store.recordCount(in: client.scope) == 0)
    }

    @Test("the failing upstream is asked once per throttle period under 1,000 concurrent callers")
    func throttleUnderLoad() async throws {
        let harness = try await ClientHarness("gqlfailsafethrottle")
        let client = try harness.resilientClient(hourOfFailSafe)
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        try await harness.failEveryRequest("AccountSummary")
        harness.clock.advance(by: .seconds(61))
        for (wave, expectedRequests) in [(0, 2), (1, 2), (2, 3)] {
            if wave == 1 { harness.clock.advance(by: .seconds(29)) }
            if wave == 2 { harness.clock.advance(by: .seconds(1)) }
            let answers = await concurrentSummaries(client, count: 1_000)
            #expect(answers.count == 1_000)
            #expect(answers.allSatisfy { (try? $0.get().staleReason) == .failSafe })
            #expect(try await harness.count("AccountSummary") == expectedRequests)
        }
        #expect(client.shared.staleAnswers.count(.failSafe) == 3_000)
    }

    @Test("without fail-safe the upstream's failure reaches the caller, stale answer or not")
    func offByDefault() async throws {
        let harness = try await ClientHarness("gqlfailsafeoff")
        let client = try harness.resilientClient(.none)
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        try await harness.failEveryRequest("AccountSummary")
        harness.clock.advance(by: .seconds(61))
        #expect(await client.fetch(query: AccountSummaryQuery()).failure?.code == .httpStatus)
        #expect(await client.fetch(query: AccountSummaryQuery()).failure?.code == .httpStatus)
        #expect(try await harness.count("AccountSummary") == 3)
    }

    @Test("an answer with GraphQL errors is the upstream's answer: fail-safe does not hide it")
    func graphQLErrorsAreNotFailures() async throws {
        let harness = try await ClientHarness("gqlfailsafegqlerrors")
        let client = try harness.resilientClient(hourOfFailSafe)
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        harness.clock.advance(by: .seconds(61))
        try await harness.injectAnswer(
            status: 200, body: #"{"data":null,"errors":[{"message":"denied"}]}"#, operation: "AccountSummary")
        #expect(await client.fetch(query: AccountSummaryQuery()).failure?.code == .graphQLErrors)
    }

    @Test("a dropped connection is a failure fail-safe answers; with nothing cached the caller gets the error")
    func droppedConnection() async throws {
        let harness = try await ClientHarness("gqlfailsafedrop")
        let client = try harness.resilientClient(hourOfFailSafe)
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        harness.clock.advance(by: .seconds(61))
        try await harness.tenant.inject(.drop, operation: "AccountSummary", count: 1_000_000)
        #expect(try await client.fetch(query: AccountSummaryQuery()).value().staleReason == .failSafe)
        let cold = try harness.resilientClient(hourOfFailSafe, session: "cold")
        #expect(await cold.fetch(query: AccountSummaryQuery()).failure?.code == .transportFailed)
    }

    @Test("a throttled query with nothing cached in another session still asks the upstream")
    func throttleNeverTurnsAMissIntoAnError() async throws {
        let harness = try await ClientHarness("gqlfailsafethrottlemiss")
        let client = try harness.resilientClient(hourOfFailSafe)
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        harness.clock.advance(by: .seconds(61))
        try await harness.injectAnswer(status: 503, body: "{}", operation: "AccountSummary")
        #expect(try await client.fetch(query: AccountSummaryQuery()).value().staleReason == .failSafe)
        // The query is throttled; a clear removes what fail-safe could serve, and the next read asks again.
        harness.store.clear(scope: client.scope)
        let answer = try await client.fetch(query: AccountSummaryQuery()).value()
        #expect(answer.source == .network)
        #expect(try await harness.count("AccountSummary") == 3)
    }
}
