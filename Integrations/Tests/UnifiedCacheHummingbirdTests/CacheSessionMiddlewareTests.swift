import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import IntegrationFixtures
import RedisReplication
import Testing
import UnifiedCache
import UnifiedCacheHummingbird

/// A balance read under stale-while-revalidate: served stale within its grace, refreshed behind.
private struct BalanceRequest: RequestType {
    typealias Response = Balance
    var path: String { "/api/accounts/101/balance" }
    var cache: RequestCache? { RequestCache(key: "balance.101", timeout: .seconds(30)) }
    var cachePolicy: RESTCachePolicy { .staleWhileRevalidate(gracePeriod: .seconds(600)) }
}

@Suite("The Hummingbird middleware gives each verified user a session and says what served them")
struct CacheSessionMiddlewareTests {
    private func router(_ harness: HummingbirdHarness) -> Router<AppContext> {
        let router = buildRouter(hub: harness.hub, upstream: harness.tenant.baseURL)
        router.get("/health") { _, _ in "ok" }
        router.get("/me/balance") { _, context in try await context.cache.response(for: BalanceRequest()) }
        return router
    }

    @Test("two users each get their own accounts from their own session; a repeat is a memory hit")
    func usersAreIsolated() async throws {
        let harness = try await HummingbirdHarness("hb-isolated")
        try await harness.application(router(harness)).test(.live) { client in
            let alice = try await client.get("/me/accounts", as: .alice)
            let bob = try await client.get("/me/accounts", as: .bob)
            #expect(alice.cacheStatus == "ucache-l1; fwd=uri-miss")
            #expect(bob.cacheStatus == "ucache-l1; fwd=uri-miss")
            let aliceIDs = Set(try alice.accounts().map(\.id))
            let bobIDs = Set(try bob.accounts().map(\.id))
            #expect(aliceIDs.contains("101") && bobIDs.contains("201"))
            #expect(aliceIDs.isDisjoint(with: bobIDs))
            let again = try await client.get("/me/accounts", as: .bob)
            #expect(again.cacheStatus == "ucache-l1; hit")
            #expect(Set(try again.accounts().map(\.id)) == bobIDs)
        }
        let counters = try await harness.tenant.counters()
        #expect(counters.route("GET /api/accounts") == 2)
        #expect(counters.tokens("GET /api/accounts") == ["token-alice": 1, "token-bob": 1])
        #expect(counters.route("GET /api/profile") == 2)
        await harness.hub.shutdown()
    }

    @Test("without a token a cached route is a 401 and nothing goes upstream; a rejected token is a 401 too")
    func anonymousAndRejected() async throws {
        let harness = try await HummingbirdHarness("hb-anonymous")
        try await harness.application(router(harness)).test(.live) { client in
            let anonymous = try await client.get("/me/accounts")
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.cacheStatus == nil)
            let forged = try await client.execute(
                uri: "/me/accounts", method: .get, headers: [.authorization: "Bearer token-mallory"])
            #expect(forged.status == .unauthorized)
            let health = try await client.get("/health")
            #expect(health.status == .ok)
            #expect(health.cacheStatus == nil)
        }
        #expect(try await harness.tenant.counters().route("GET /api/accounts") == 0)
        #expect(harness.hub.sessionCount == 0)
        await harness.hub.shutdown()
    }

    @Test("logout ends the user's session: the next read goes upstream; the other user's cache stays")
    func logoutClears() async throws {
        let harness = try await HummingbirdHarness("hb-logout")
        try await harness.application(router(harness)).test(.live) { client in
            _ = try await client.get("/me/accounts", as: .alice)
            _ = try await client.get("/me/accounts", as: .bob)
            let logout = try await client.post("/logout", as: .alice)
            #expect(logout.status == .noContent)
            #expect(harness.hub.existingSession(principal: VerifiedPrincipal("alice")) == nil)
            let alice = try await client.get("/me/accounts", as: .alice)
            #expect(alice.cacheStatus == "ucache-l1; fwd=uri-miss")
            let bob = try await client.get("/me/accounts", as: .bob)
            #expect(bob.cacheStatus == "ucache-l1; hit")
            #expect(try await client.post("/logout").status == .unauthorized)
        }
        let counters = try await harness.tenant.counters()
        #expect(counters.tokens("GET /api/accounts") == ["token-alice": 2, "token-bob": 1])
        // The logout forgot the token's verdict: alice's token was verified again, bob's was not.
        #expect(counters.tokens("GET /api/profile") == ["token-alice": 2, "token-bob": 1])
        await harness.hub.shutdown()
    }

    @Test("an answer past its lifetime served within its grace is reported stale")
    func staleIsReported() async throws {
        let harness = try await HummingbirdHarness("hb-stale")
        try await harness.application(router(harness)).test(.live) { client in
            #expect(try await client.get("/me/balance", as: .alice).cacheStatus == "ucache-l1; fwd=uri-miss")
            #expect(try await client.get("/me/balance", as: .alice).cacheStatus == "ucache-l1; hit")
            harness.clock.advance(by: .seconds(31))
            let stale = try await client.get("/me/balance", as: .alice)
            #expect(stale.status == .ok)
            #expect(stale.cacheStatus == "ucache-l1; hit; detail=stale-soft-timeout")
        }
        await harness.hub.shutdown()
    }

    @Test("an identity from the app's own authenticator (a closure) gets a session; a refusal is its status")
    func closureIdentity() async throws {
        let harness = try await HummingbirdHarness("hb-closure")
        let router = Router(context: AppContext.self)
        router.add(
            middleware: CacheSessionMiddleware(hub: harness.hub) { request, _ in
                guard let user = request.headers[HTTPField.Name("X-Test-User")!] else { return nil }
                guard user != "mallory" else { throw HTTPError(.forbidden) }
                return CacheIdentity(principal: VerifiedPrincipal(user), credentials: .bearer("token-\(user)"))
            })
        router.get("/me/accounts") { _, context in try await context.cache.response(for: AccountsRequest()) }
        try await harness.application(router).test(.live) { client in
            let carol = try await client.execute(
                uri: "/me/accounts", method: .get, headers: [HTTPField.Name("X-Test-User")!: "carol"])
            #expect(carol.cacheStatus == "ucache-l1; fwd=uri-miss")
            #expect(try carol.accounts().map(\.id) == ["301"])
            let mallory = try await client.execute(
                uri: "/me/accounts", method: .get, headers: [HTTPField.Name("X-Test-User")!: "mallory"])
            #expect(mallory.status == .forbidden)
        }
        #expect(harness.hub.existingSession(principal: VerifiedPrincipal("carol")) != nil)
        #expect(try await harness.tenant.counters().route("GET /api/profile") == 0)
        await harness.hub.shutdown()
    }

    @Test("with a shared second level: a miss in both, then another replica's L2 hit, then its memory hit")
    func secondLevelIsReported() async throws {
        let url = try await RedisTestServer.sharedURL()
        let prefix = "ucache-test:hb-\(UUID().uuidString.prefix(8)):"
        func secondLevel() throws -> SecondLevelConfiguration {
            var store = try RedisSecondLevelConfiguration(url: url)
            store.keyPrefix = prefix
            // A patient read deadline: with the default 5 ms, a loaded run turned a read into an unavailable one,
            // which writes nothing (the first replica's write never came) or misses (the second replica fetched).
            return SecondLevelConfiguration(
                store: RedisSecondLevelStore(configuration: store),
                secret: try SecondLevelSecret(Array("a-fleet-secret-of-32-bytes-or-more".utf8)),
                readDeadline: .milliseconds(TestTiming.milliseconds(10_000)))
        }
        let first = try await HummingbirdHarness("hb-l2", secondLevel: secondLevel())
        let second = try await HummingbirdHarness("hb-l2", secondLevel: secondLevel(), tenant: first.tenant)
        for harness in [first, second] {
            try await waitUntil { harness.hub.secondLevelStatistics?.store.isConnected == true }
        }
        try await first.application(router(first)).test(.live) { client in
            let missedBoth = try await client.get("/me/accounts", as: .alice)
            #expect(missedBoth.cacheStatus == "ucache-l2; fwd=uri-miss, ucache-l1; fwd=uri-miss")
        }
        try await waitUntil { (first.hub.secondLevelStatistics?.store.writes ?? 0) >= 1 }
        try await second.application(router(second)).test(.live) { client in
            let fromSecondLevel = try await client.get("/me/accounts", as: .alice)
            #expect(fromSecondLevel.cacheStatus == "ucache-l2; hit, ucache-l1; fwd=uri-miss; stored")
            let fromMemory = try await client.get("/me/accounts", as: .alice)
            #expect(fromMemory.cacheStatus == "ucache-l1; hit")
        }
        #expect(try await first.tenant.counters().route("GET /api/accounts") == 1)
        await first.hub.shutdown()
        await second.hub.shutdown()
    }
}
