import FixtureSupport
import Foundation
import RESTCache
import Testing

@Suite("Step 1: the old request types over one APIService per session")
struct Step1RESTOnlyTests {
    @Test("the second read of a balance comes from the session's cache")
    func secondReadIsCached() async throws {
        let tenant = try await FixtureServer.tenant("migstep1hit")
        let backend = try RESTOnlyBackend(upstream: tenant.baseURL)
        let alice = backend.service(sessionID: "s-alice", token: FixtureTenant.User.alice.token)

        #expect(await balanceText(alice, accountId: "101") == "available 2450.0")
        #expect(await balanceText(alice, accountId: "101") == "available 2450.0")
        let again = try await alice.performWithSource(with: BalanceRequest(accountId: "101")).get()

        #expect(again.source == .cache)
        #expect(try await tenant.counters().route("GET /api/accounts/101/balance") == 1)
    }

    @Test("another session sees nothing of it: it gets the upstream's typed 404, which is never cached")
    func otherSessionGetsTypedErrorNotCached() async throws {
        let tenant = try await FixtureServer.tenant("migstep1bob")
        let backend = try RESTOnlyBackend(upstream: tenant.baseURL)
        let alice = backend.service(sessionID: "s-alice", token: FixtureTenant.User.alice.token)
        let bob = backend.service(sessionID: "s-bob", token: FixtureTenant.User.bob.token)
        _ = await balanceText(alice, accountId: "101")

        #expect(await balanceText(bob, accountId: "101") == "upstream answered 404 account_not_found")
        #expect(await balanceText(bob, accountId: "101") == "upstream answered 404 account_not_found")

        #expect(try await tenant.counters().route("GET /api/accounts/101/balance") == 3)
        #expect(backend.store.entryCount(in: .session("s-bob")) == 0)
        #expect(backend.store.entryCount(in: .session("s-alice")) == 1)
    }

    @Test("logout removes the session's scope and leaves the other session's entries")
    func logoutClearsOneSession() async throws {
        let tenant = try await FixtureServer.tenant("migstep1logout")
        let backend = try RESTOnlyBackend(upstream: tenant.baseURL)
        let alice = backend.service(sessionID: "s-alice", token: FixtureTenant.User.alice.token)
        let bob = backend.service(sessionID: "s-bob", token: FixtureTenant.User.bob.token)
        _ = await balanceText(alice, accountId: "101")
        _ = await balanceText(bob, accountId: "201")

        let report = backend.logout(sessionID: "s-alice")

        #expect(report.entries == 1)
        #expect(report.reason == .logout)
        #expect(try await alice.performWithSource(with: BalanceRequest(accountId: "101")).get().source == .network)
        #expect(try await bob.performWithSource(with: BalanceRequest(accountId: "201")).get().source == .cache)
    }

    @Test("logout of a session that cached nothing removes nothing")
    func logoutOfUnknownSession() async throws {
        let tenant = try await FixtureServer.tenant("migstep1none")
        let backend = try RESTOnlyBackend(upstream: tenant.baseURL)
        let bob = backend.service(sessionID: "s-bob", token: FixtureTenant.User.bob.token)
        _ = await balanceText(bob, accountId: "201")

        #expect(backend.logout(sessionID: "s-nobody").entries == 0)
        #expect(backend.store.entryCount(in: .session("s-bob")) == 1)
    }
}
