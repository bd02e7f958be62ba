import Foundation
import IntegrationFixtures
import Testing
import UnifiedCache
import UnifiedCacheVapor
import Vapor
import VaporTesting

/// A user Vapor's authenticators log in.
private struct TestUser: Authenticatable {
    var name: String
}

/// Logs in the user the `X-Test-User` header names (as a session cookie or a JWT authenticator would).
private struct HeaderAuthenticator: AsyncRequestAuthenticator {
    func authenticate(request: Request) async throws {
        if let name = request.headers.first(name: "X-Test-User") { request.auth.login(TestUser(name: name)) }
    }
}

@Suite("The Vapor middleware gives each verified user a session and says what served them")
struct VaporCacheSessionMiddlewareTests {
    private func configure(_ harness: VaporHarness) -> (Application) throws -> Void {
        { app in
            routes(app, hub: harness.hub, upstream: harness.tenant.baseURL)
            app.get("health") { _ in "ok" }
        }
    }

    @Test("two users each get their own accounts from their own session; a repeat is a memory hit")
    func usersAreIsolated() async throws {
        let harness = try await VaporHarness("vapor-isolated")
        try await harness.withApp(configure(harness)) { _, client in
            let alice = try await client.get("/me/accounts", as: .alice)
            let bob = try await client.get("/me/accounts", as: .bob)
            #expect(alice.status == .ok && bob.status == .ok)
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
        let harness = try await VaporHarness("vapor-anonymous")
        try await harness.withApp(configure(harness)) { _, client in
            let anonymous = try await client.get("/me/accounts")
            #expect(anonymous.status == .unauthorized)
            #expect(anonymous.cacheStatus == nil)
            let forged = try await client.sendRequest(
                .GET, "/me/accounts", headers: ["Authorization": "Bearer token-mallory"])
            #expect(forged.status == .unauthorized)
            #expect(try await client.post("/logout").status == .unauthorized)
            let health = try await client.get("/health")
            #expect(health.status == .ok)
            #expect(health.cacheStatus == nil)
        }
        #expect(try await harness.tenant.counters().route("GET /api/accounts") == 0)
        #expect(harness.hub.sessionCount == 0)
        await harness.hub.shutdown()
    }

    @Test("an upstream that cannot say who a token belongs to is a 502, and nothing is read for it")
    func verifierUnavailable() async throws {
        let harness = try await VaporHarness("vapor-verifier-down")
        try await harness.tenant.inject(.status(503), route: "GET /api/profile", count: 10)
        try await harness.withApp(configure(harness)) { _, client in
            let response = try await client.get("/me/accounts", as: .alice)
            #expect(response.status == .badGateway)
        }
        #expect(try await harness.tenant.counters().route("GET /api/accounts") == 0)
        #expect(harness.hub.sessionCount == 0)
        await harness.hub.shutdown()
    }

    @Test("logout ends the user's session: the next read goes upstream; the other user's cache stays")
    func logoutClears() async throws {
        let harness = try await VaporHarness("vapor-logout")
        try await harness.withApp(configure(harness)) { _, client in
            _ = try await client.get("/me/accounts", as: .alice)
            _ = try await client.get("/me/accounts", as: .bob)
            #expect(try await client.get("/me/accounts", as: .alice).cacheStatus == "ucache-l1; hit")
            let logout = try await client.post("/logout", as: .alice)
            #expect(logout.status == .noContent)
            #expect(harness.hub.existingSession(principal: VerifiedPrincipal("alice")) == nil)
            let alice = try await client.get("/me/accounts", as: .alice)
            #expect(alice.cacheStatus == "ucache-l1; fwd=uri-miss")
            let bob = try await client.get("/me/accounts", as: .bob)
            #expect(bob.cacheStatus == "ucache-l1; hit")
        }
        let counters = try await harness.tenant.counters()
        #expect(counters.tokens("GET /api/accounts") == ["token-alice": 2, "token-bob": 1])
        // The logout forgot the token's verdict: alice's token was verified again, bob's was not.
        #expect(counters.tokens("GET /api/profile") == ["token-alice": 2, "token-bob": 1])
        await harness.hub.shutdown()
    }

    @Test("the user Vapor's authenticator logged in gets a session; a request it did not log in is a 401")
    func authenticatableIdentity() async throws {
        let harness = try await VaporHarness("vapor-auth")
        let configure: (Application) throws -> Void = { app in
            let cached = app.grouped(HeaderAuthenticator()).grouped(
                CacheSessionMiddleware(hub: harness.hub, user: TestUser.self) { user in
                    CacheIdentity(principal: VerifiedPrincipal(user.name), credentials: .bearer("token-\(user.name)"))
                })
            cached.get("me", "accounts") { req async throws -> [Account] in
                try await req.unifiedCache.response(for: AccountsRequest())
            }
        }
        try await harness.withApp(configure) { _, client in
            let carol = try await client.sendRequest(.GET, "/me/accounts", headers: ["X-Test-User": "carol"])
            #expect(carol.status == .ok)
            #expect(carol.cacheStatus == "ucache-l1; fwd=uri-miss")
            #expect(try carol.accounts().map(\.id) == ["301"])
            let nobody = try await client.get("/me/accounts")
            #expect(nobody.status == .unauthorized)
        }
        #expect(harness.hub.existingSession(principal: VerifiedPrincipal("carol")) != nil)
        let counters = try await harness.tenant.counters()
        #expect(counters.tokens("GET /api/accounts") == ["token-carol": 1])
        #expect(counters.route("GET /api/profile") == 0)
        await harness.hub.shutdown()
    }

    @Test("an identity closure that refuses a request answers with its own status and reads nothing")
    func closureRefusal() async throws {
        let harness = try await VaporHarness("vapor-closure")
        let configure: (Application) throws -> Void = { app in
            let cached = app.grouped(
                CacheSessionMiddleware(hub: harness.hub) { request in
                    guard let user = request.headers.first(name: "X-Test-User") else { return nil }
                    guard user != "mallory" else { throw Abort(.forbidden) }
                    return CacheIdentity(principal: VerifiedPrincipal(user), credentials: .bearer("token-\(user)"))
                })
            cached.get("me", "accounts") { req async throws -> [Account] in
                try await req.unifiedCache.response(for: AccountsRequest())
            }
        }
        try await harness.withApp(configure) { _, client in
            let mallory = try await client.sendRequest(.GET, "/me/accounts", headers: ["X-Test-User": "mallory"])
            #expect(mallory.status == .forbidden)
            #expect(mallory.cacheStatus == nil)
        }
        #expect(try await harness.tenant.counters().route("GET /api/accounts") == 0)
        #expect(harness.hub.sessionCount == 0)
        await harness.hub.shutdown()
    }
}
