import CacheCore
import FixtureSupport
import GraphQLCache
import Testing

@Suite("GraphQL client: eager refresh of answers late in their life")
struct ClientEagerRefreshTests {
    private let eager = CacheResilience(eagerRefreshThreshold: 0.9)

    @Test("1,000 hits past the threshold are answered at once and make exactly one upstream call")
    func oneRefreshForAThousandHits() async throws {
        let harness = try await ClientHarness("gqleager")
        let recorder = HitRecorder()
        let client = try harness.resilientClient(eager, instrumentation: recorder)
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        harness.clock.advance(by: .seconds(55))
        // The refresh cannot land while the hits are answered: each hit sees the answer late in its life.
        try await harness.tenant.holdAnswers(operation: "AccountSummary")
        let answers = await concurrentSummaries(client, count: 1_000)
        #expect(answers.count == 1_000)
        for answer in answers {
            let result = try answer.get()
            #expect(result.source == .cache)
            #expect(!result.isStale)
            #expect(result.staleReason == .eagerRefresh)
        }
        #expect(recorder.served.count == 1_000)
        #expect(client.shared.staleAnswers.count(.eagerRefresh) == 1_000)
        #expect(recorder.served.allSatisfy { $0.outcome == .hit && $0.staleReason == .eagerRefresh })
        try await harness.tenant.releaseHeldAnswers()
        await client.waitForBackgroundRefreshes()
        #expect(try await harness.count("AccountSummary") == 2)
        let refreshed = try await client.fetch(query: AccountSummaryQuery()).value()
        #expect(refreshed.age == .zero)
        #expect(refreshed.staleReason == nil)
        #expect(try await harness.count("AccountSummary") == 2)
    }

    @Test("hits before the threshold refresh nothing")
    func beforeTheThreshold() async throws {
        let harness = try await ClientHarness("gqleagerearly")
        let client = try harness.resilientClient(eager)
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        harness.clock.advance(by: .seconds(53))
        let answer = try await client.fetch(query: AccountSummaryQuery()).value()
        #expect(answer.staleReason == nil)
        await client.waitForBackgroundRefreshes()
        #expect(try await harness.count("AccountSummary") == 1)
    }

    @Test("a refresh that fails leaves the answer in place and a later hit tries again")
    func failedRefresh() async throws {
        let harness = try await ClientHarness("gqleagerfail")
        let client = try harness.resilientClient(eager)
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        harness.clock.advance(by: .seconds(55))
        try await harness.injectAnswer(status: 503, body: "{}", operation: "AccountSummary")
        #expect(try await client.fetch(query: AccountSummaryQuery()).value().staleReason == .eagerRefresh)
        await client.waitForBackgroundRefreshes()
        #expect(try await client.fetch(query: AccountSummaryQuery()).value().staleReason == .eagerRefresh)
        await client.waitForBackgroundRefreshes()
        #expect(try await harness.count("AccountSummary") == 3)
        #expect(try await client.fetch(query: AccountSummaryQuery()).value().age == .zero)
    }
}
