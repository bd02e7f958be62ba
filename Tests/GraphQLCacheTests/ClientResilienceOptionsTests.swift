import CacheCore
import FixtureSupport
import GraphQLCache
import Testing

@Suite("GraphQL client: where resilience options come from and what they refuse")
struct ClientResilienceOptionsTests {
    @Test("invalid options are refused with invalidConfiguration: per call, per operation and as the default")
    func invalidOptions() async throws {
        let harness = try await ClientHarness("gqlresilienceinvalid")
        let client = try harness.resilientClient(.none)
        for bad in [
            CacheResilience(eagerRefreshThreshold: 1.5),
            CacheResilience(eagerRefreshThreshold: 0),
            CacheResilience(failSafeMaxDuration: .seconds(-1)),
            CacheResilience(softTimeout: .seconds(2), hardTimeout: .seconds(1)),
        ] {
            #expect(
                await client.fetch(query: AccountSummaryQuery(), resilience: bad).failure?.code == .invalidConfiguration
            )
            var config = GraphQLCacheConfig(defaultTimeout: 60)
            config.operationResilience = ["AccountSummary": bad]
            let error = #expect(throws: GraphQLCacheError.self) { try client.updateCacheConfig(config) }
            #expect(error?.code == .invalidConfiguration)
            let refused = #expect(throws: GraphQLCacheError.self) { try harness.resilientClient(bad) }
            #expect(refused?.code == .invalidConfiguration)
        }
        #expect(try await harness.count("AccountSummary") == 0)
        #expect(client.cacheConfig.operationResilience.isEmpty)
    }

    @Test("an operation's options apply to that operation only, and a call's win over them")
    func precedence() async throws {
        let harness = try await ClientHarness("gqlresilienceprecedence")
        var config = GraphQLCacheConfig(defaultTimeout: 60)
        config.operationResilience = ["AccountSummary": CacheResilience(failSafeMaxDuration: .seconds(3600))]
        let client = try harness.resilientClient(.none, cacheConfig: config)
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        _ = try await client.fetch(query: AccountBalanceQuery(id: "101")).value()
        // 31 s past freshness: within the operation's hour and the balance call's minute, past the 10 s call's.
        harness.clock.advance(by: .seconds(91))
        try await harness.failEveryRequest("AccountSummary")
        try await harness.failEveryRequest("AccountBalance")
        #expect(try await client.fetch(query: AccountSummaryQuery()).value().staleReason == .failSafe)
        #expect(await client.fetch(query: AccountBalanceQuery(id: "101")).failure?.code == .httpStatus)
        let perCall = CacheResilience(failSafeMaxDuration: .seconds(10))
        #expect(await client.fetch(query: AccountSummaryQuery(), resilience: perCall).failure?.code == .httpStatus)
        let forBalance = CacheResilience(failSafeMaxDuration: .seconds(60))
        #expect(try await client.fetch(query: AccountBalanceQuery(id: "101"), resilience: forBalance).value().isStale)
    }

    @Test("the stale reason reaches the instrumentation's hit hook")
    func reasonsReachTheHitHook() async throws {
        let harness = try await ClientHarness("gqlresiliencehook")
        let recorder = HitRecorder()
        let client = try harness.resilientClient(
            CacheResilience(failSafeMaxDuration: .seconds(3600)), instrumentation: recorder)
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        harness.clock.advance(by: .seconds(61))
        try await harness.injectAnswer(status: 503, body: "{}", operation: "AccountSummary")
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        #expect(
            recorder.served == [
                CacheHit(part: .graphql, tier: .l1, outcome: .hit),
                CacheHit(part: .graphql, tier: .l1, outcome: .stale, staleReason: .failSafe),
            ])
        #expect(client.shared.staleAnswers.counts.map(\.count) == [1, 0, 0])
    }

    @Test("purges keep records for the longest fail-safe window any source asked for")
    func retention() async throws {
        let harness = try await ClientHarness("gqlresilienceretention")
        var config = GraphQLCacheConfig(defaultTimeout: 60)
        config.operationResilience = ["AccountSummary": CacheResilience(failSafeMaxDuration: .seconds(600))]
        let client = try harness.resilientClient(
            CacheResilience(failSafeMaxDuration: .seconds(300)), cacheConfig: config)
        #expect(client.shared.failSafeRetention == .seconds(600))
        _ = await client.fetch(
            query: AccountSummaryQuery(), resilience: CacheResilience(failSafeMaxDuration: .seconds(7200)))
        #expect(client.shared.failSafeRetention == .seconds(7200))
        let now = harness.clock.now()
        #expect(client.shared.recordPurgeCutoff(now: now, grace: .seconds(60)) == now.advanced(by: .seconds(-7320)))
        var never = config
        never.defaultTimeout = 60
        never.typeTimeouts = ["Account": .never]
        try client.updateCacheConfig(never)
        #expect(client.shared.recordPurgeCutoff(now: now) == nil)
    }
}
