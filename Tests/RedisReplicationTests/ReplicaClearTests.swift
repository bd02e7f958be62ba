import FixtureSupport
import Foundation
import GraphQLCache
import RESTCache
import Testing
import UnifiedCache

@Suite("Every clear made on one replica is applied by the others")
struct ReplicaClearTests {
    private let balance = CachedGET(path: "/api/accounts/101/balance", key: "balances.101")
    private let payees = CachedGET(path: "/api/payees", key: "payees.all")
    private let summary = CachedGET(path: "/api/accounts", key: "accountSummary.list")
    private let graphQLBalance = UntypedGraphQLOperation(
        document: "query AccountBalance($id: ID!) { account(id: $id) { id balance availableBalance } }",
        operationName: "AccountBalance",
        variables: ["id": "101"]
    )

    @Test("clearAllCaches on A empties the same session on B (REST and GraphQL) and leaves B's other sessions")
    func clearAllReachesOtherReplica() async throws {
        let fleet = try await ReplicaHarness("replclearall")
        let aliceOnA = try fleet.session(fleet.a, .alice)
        let aliceOnB = try fleet.session(fleet.b, .alice)
        let bobOnB = try fleet.session(fleet.b, .bob)
        _ = try await aliceOnB.rest.perform(with: balance).get()
        #expect(await aliceOnB.graphQL.fetch(operation: graphQLBalance).isSuccess)
        _ = try await bobOnB.rest.perform(with: summary).get()

        await aliceOnA.cacheManager.clearAllCaches()
        try await fleet.waitUntilApplied(fleet.b, 1)

        #expect(aliceOnB.cacheManager.getCacheStatistics().rest.entryCount == 0)
        #expect(aliceOnB.cacheManager.getCacheStatistics().graphQLRecords == 0)
        #expect(try await bobOnB.source(of: summary) == .cache)
        #expect(fleet.a.replicationStatistics?.applied == 0)
        #expect((fleet.a.replicationStatistics?.ignoredOwn ?? 0) >= 1)
        #expect(fleet.b.replicationStatistics?.published == 0, "what B applies is not published again")
        await fleet.shutdown()
    }

    @Test("endSession on A ends the session on B too")
    func endSessionReachesOtherReplica() async throws {
        let fleet = try await ReplicaHarness("replend")
        _ = try fleet.session(fleet.a, .alice)
        let aliceOnB = try fleet.session(fleet.b, .alice)
        _ = try await aliceOnB.rest.perform(with: balance).get()

        await fleet.a.endSession(id: "session-alice")
        try await fleet.waitUntilApplied(fleet.b, 1)

        #expect(fleet.b.existingSession(id: "session-alice") == nil)
        #expect(aliceOnB.cacheManager.getCacheStatistics().rest.entryCount == 0)
        await fleet.shutdown()
    }

    @Test(
        "each granular and unified clear on A clears the same data on B, and only that",
        arguments: [
            ("clearBalancesCache", true, false),
            ("clearPayeesCache", false, true),
            ("clearRESTCache", true, true),
            ("clearCache(forAccountId:)", true, false),
        ])
    func granularClearsReachOtherReplica(method: String, clearsBalance: Bool, clearsPayees: Bool) async throws {
        let fleet = try await ReplicaHarness("replgranular")
        let aliceOnA = try fleet.session(fleet.a, .alice)
        let aliceOnB = try fleet.session(fleet.b, .alice)
        let accountBalance = CachedGET(path: balance.path, key: balance.key, accounts: ["101"])
        _ = try await aliceOnB.rest.perform(with: accountBalance).get()
        _ = try await aliceOnB.rest.perform(with: payees).get()

        let manager = aliceOnA.cacheManager
        switch method {
        case "clearBalancesCache": await manager.clearBalancesCache()
        case "clearPayeesCache": await manager.clearPayeesCache()
        case "clearRESTCache": await manager.clearRESTCache()
        default: await manager.clearCache(forAccountId: "101")
        }
        try await fleet.waitUntilApplied(fleet.b, 1)

        #expect(try await aliceOnB.source(of: accountBalance) == (clearsBalance ? .network : .cache))
        #expect(try await aliceOnB.source(of: payees) == (clearsPayees ? .network : .cache))
        await fleet.shutdown()
    }

    @Test(
        "GraphQL clears on A (whole cache, by query) clear B's GraphQL data and leave its REST entries",
        arguments: ["clearGraphQLCache", "clearCache(forQuery:)"])
    func graphQLClearsReachOtherReplica(method: String) async throws {
        let fleet = try await ReplicaHarness("replgqlclear")
        let aliceOnA = try fleet.session(fleet.a, .alice)
        let aliceOnB = try fleet.session(fleet.b, .alice)
        #expect(await aliceOnB.graphQL.fetch(operation: graphQLBalance).isSuccess)
        _ = try await aliceOnB.rest.perform(with: balance).get()

        if method == "clearGraphQLCache" {
            await aliceOnA.cacheManager.clearGraphQLCache()
        } else {
            await aliceOnA.cacheManager.clearCache(forQuery: "AccountBalance")
        }
        try await fleet.waitUntilApplied(fleet.b, 1)

        let cached = await aliceOnB.graphQL.fetch(operation: graphQLBalance, cachePolicy: .returnCacheDataDontFetch)
        #expect(!cached.isSuccess, "B's AccountBalance result should be gone")
        #expect(try await aliceOnB.source(of: balance) == .cache)
        await fleet.shutdown()
    }

    @Test("a clear of a session B does not hold changes nothing on B and is counted")
    func unknownSessionOnOtherReplica() async throws {
        let fleet = try await ReplicaHarness("replunknown")
        let aliceOnA = try fleet.session(fleet.a, .alice)
        let bobOnB = try fleet.session(fleet.b, .bob)
        _ = try await bobOnB.rest.perform(with: summary).get()

        await aliceOnA.cacheManager.clearAllCaches()
        try await waitUntil { (fleet.b.replicationStatistics?.unknownSession ?? 0) == 1 }

        #expect(fleet.b.replicationStatistics?.applied == 0)
        #expect(try await bobOnB.source(of: summary) == .cache)
        await fleet.shutdown()
    }

    @Test("a REST mutation on A invalidates B's copies of the entities it changed (entity links included)")
    func restMutationReachesOtherReplica() async throws {
        let fleet = try await ReplicaHarness("replrestmut")
        let aliceOnA = try fleet.session(fleet.a, .alice)
        let aliceOnB = try fleet.session(fleet.b, .alice)
        _ = try await aliceOnB.rest.perform(with: balance).get()
        #expect(await aliceOnB.graphQL.fetch(operation: graphQLBalance).isSuccess)
        _ = try await aliceOnB.rest.perform(with: payees).get()

        _ = try await aliceOnA.rest.perform(with: RESTPayment()).get()
        try await fleet.waitUntilApplied(fleet.b, 1)

        let cachedBalance = await aliceOnB.graphQL.fetch(
            operation: graphQLBalance, cachePolicy: .returnCacheDataDontFetch)
        #expect(!cachedBalance.isSuccess, "B's GraphQL balance of account 101 should be gone")
        #expect(try await aliceOnB.source(of: balance) == .network)
        #expect(try await aliceOnB.source(of: payees) == .cache)
        await fleet.shutdown()
    }

    @Test("a GraphQL mutation on A drops B's copies of the records it changed, and B's REST copies")
    func graphQLMutationReachesOtherReplica() async throws {
        let fleet = try await ReplicaHarness("replgqlmut")
        let aliceOnA = try fleet.session(fleet.a, .alice)
        let aliceOnB = try fleet.session(fleet.b, .alice)
        #expect(await aliceOnB.graphQL.fetch(operation: graphQLBalance).isSuccess)
        _ = try await aliceOnB.rest.perform(with: balance).get()
        _ = try await aliceOnB.rest.perform(with: payees).get()

        #expect(await aliceOnA.graphQL.perform(operation: payment).isSuccess)
        try await fleet.waitUntilApplied(fleet.b, 1)

        let cachedBalance = await aliceOnB.graphQL.fetch(
            operation: graphQLBalance, cachePolicy: .returnCacheDataDontFetch)
        #expect(!cachedBalance.isSuccess, "B's Account:101 should be gone")
        #expect(try await aliceOnB.source(of: balance) == .network)
        #expect(try await aliceOnB.source(of: payees) == .cache)
        await fleet.shutdown()
    }

    @Test("a settings reload that clears a domain on A clears it in every session of B, even ones A never saw")
    func settingsReloadReachesOtherReplica() async throws {
        let fleet = try await ReplicaHarness("replsettings")
        let aliceOnB = try fleet.session(fleet.b, .alice)
        _ = try await aliceOnB.rest.perform(with: balance).get()
        _ = try await aliceOnB.rest.perform(with: payees).get()

        let json = Data(#"{"domainMap": "banking", "domains": {"balances": {"policy": 10}}}"#.utf8)
        _ = try await fleet.a.reloadSettings(from: .json(json, source: "test"), clearingAffectedDomains: true)
        try await fleet.waitUntilApplied(fleet.b, 1)

        #expect(try await aliceOnB.source(of: balance) == .network)
        #expect(try await aliceOnB.source(of: payees) == .cache)
        await fleet.shutdown()
    }

    @Test("an answer in flight on B that started before A's logout is not stored on B")
    func generationRuleAcrossReplicas() async throws {
        let fleet = try await ReplicaHarness("replinflight")
        try await fleet.tenant.holdAnswers(route: "GET /api/accounts")
        let aliceOnA = try fleet.session(fleet.a, .alice)
        let aliceOnB = try fleet.session(fleet.b, .alice)
        let inFlight = Task { await aliceOnB.rest.performWithSource(with: summary) }
        try await waitUntil { try await fleet.tenant.counters().route("GET /api/accounts") == 1 }

        await aliceOnA.cacheManager.clearAllCaches()
        try await fleet.waitUntilApplied(fleet.b, 1)

        try await fleet.tenant.releaseHeldAnswers()
        #expect(try await inFlight.value.get().source == .network)
        #expect(aliceOnB.cacheManager.getCacheStatistics().rest.entryCount == 0)
        await fleet.shutdown()
    }

    @Test("a replica with another fleet secret rejects the messages and clears nothing")
    func foreignSecretIsRejected() async throws {
        let fleet = try await ReplicaHarness("replforeign")
        let intruder = try ReplicaHarness.hub(
            tenant: fleet.tenant, redisURL: fleet.redisURL, channel: fleet.channel, settings: SettingsStore(),
            secret: "some-other-fleet-secret-987654321")
        try await ReplicaHarness.waitUntilReady(intruder)
        let aliceOnB = try fleet.session(fleet.b, .alice)
        _ = try await aliceOnB.rest.perform(with: balance).get()
        let aliceOnIntruder = intruder.session(
            id: "session-alice", principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice"))
        _ = try await aliceOnIntruder.rest.perform(with: balance).get()

        try await fleet.session(fleet.a, .alice).cacheManager.clearAllCaches()
        try await fleet.waitUntilApplied(fleet.b, 1)
        try await waitUntil { (intruder.replicationStatistics?.rejected ?? 0) >= 1 }

        #expect(try await aliceOnIntruder.source(of: balance) == .cache)
        #expect((fleet.b.replicationStatistics?.rejected ?? 0) == 0)
        await intruder.shutdown()
        await fleet.shutdown()
    }

    @Test("metrics show the link and the replication counters, and no session id")
    func metrics() async throws {
        let fleet = try await ReplicaHarness("replmetrics")
        let aliceOnA = try fleet.session(fleet.a, .alice)
        _ = try fleet.session(fleet.b, .alice)
        await aliceOnA.cacheManager.clearAllCaches()
        try await fleet.waitUntilApplied(fleet.b, 1)
        let text = fleet.b.metricsText()
        #expect(text.contains("ucache_replication_link_up 1"))
        #expect(text.contains("ucache_replication_applied_total 1"))
        #expect(!text.contains("session-alice"))
        await fleet.shutdown()
    }

    private let payment = UntypedGraphQLOperation(
        document: """
            mutation MakePayment($input: PaymentInput!) {
              makePayment(input: $input) { account { id balance availableBalance } transaction { id amount } }
            }
            """,
        operationName: "MakePayment",
        variables: ["input": ["fromAccountId": "101", "payeeId": "payee-alice-1", "amount": 40.0, "reference": "t"]]
    )
}

private struct PaymentBody: Encodable, Sendable {
    var fromAccountId = "101"
    var payeeId = "payee-alice-1"
    var amount = 40.0
    var reference = "t"
}

private struct RESTPayment: RequestType {
    typealias Response = AnyJSON
    var method: CurlHTTPClient.Method { .post }
    var path: String { "/api/payments" }
    var body: PaymentBody? = PaymentBody()
}
