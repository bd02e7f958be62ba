import FixtureSupport
import Foundation
import GraphQLCache
import RESTCache
import Testing
import UnifiedCache

@Suite("Step 4: each scenario of the seeds is one call, and does what the seeds ask")
struct Step4ScenarioTests {
    /// Alice's balance of account 101 in both protocols.
    private func populateBalances(_ session: CacheSession, accountId: String = "101") async throws {
        _ = try await session.rest.perform(with: BalanceRequest(accountId: accountId)).get()
        _ = try await session.graphQL.fetch(query: AccountBalanceQuery(accountId: accountId)).get()
    }

    private func isCachedInGraphQL(_ session: CacheSession, accountId: String) async -> Bool {
        let result = await session.graphQL.fetch(
            query: AccountBalanceQuery(accountId: accountId), cachePolicy: .returnCacheDataDontFetch)
        return result.isSuccess
    }

    @Test("logout and session expiry remove everything of one session, cookies included, and forget it")
    func endSession() async throws {
        let fixture = try await MigrationFixture("migstep4logout")
        let alice = fixture.alice()
        let bob = fixture.bob()
        try await populateBalances(alice)
        try await populateBalances(bob, accountId: "201")
        _ = try await fixture.bff.hub.client.execute(
            .init(url: fixture.tenant.url("/api/cookies/set?name=sid&value=a"), cookieJar: alice.cookieJar))

        let logout = try #require(await fixture.bff.endSession("session-alice"))
        let expiry = try #require(await fixture.bff.endSession("session-bob", expired: true))

        #expect(logout.succeeded && expiry.succeeded)
        #expect(logout.reason == .logout && expiry.reason == .sessionExpired)
        #expect(logout.entries == 1 && logout.records > 0 && logout.cookies == 1)
        #expect(alice.cookieJar.cookies().isEmpty)
        #expect(fixture.bff.hub.sessionCount == 0)
        let again = fixture.alice()
        #expect(again !== alice)
        #expect(!(await isCachedInGraphQL(again, accountId: "101")))
    }

    @Test("ending one session leaves the other; ending an unknown one does nothing")
    func endSessionLeavesOthers() async throws {
        let fixture = try await MigrationFixture("migstep4other")
        let bob = fixture.bob()
        try await populateBalances(bob, accountId: "201")

        #expect(await fixture.bff.endSession("session-nobody") == nil)
        _ = fixture.alice()
        #expect(await fixture.bff.endSession("session-alice") != nil)

        #expect(try await bob.rest.performWithSource(with: BalanceRequest(accountId: "201")).get().source == .cache)
        #expect(await isCachedInGraphQL(bob, accountId: "201"))
    }

    @Test("an account switch removes that account in both protocols; the other account stays")
    func accountSwitch() async throws {
        let fixture = try await MigrationFixture("migstep4switch")
        let alice = fixture.alice()
        try await populateBalances(alice, accountId: "101")
        try await populateBalances(alice, accountId: "102")

        let report = await fixture.bff.switchAccount(alice, from: "101")

        #expect(report.succeeded)
        #expect(report.entries == 1 && report.records >= 1)
        #expect(try await alice.rest.performWithSource(with: BalanceRequest(accountId: "101")).get().source == .network)
        #expect(!(await isCachedInGraphQL(alice, accountId: "101")))
        #expect(try await alice.rest.performWithSource(with: BalanceRequest(accountId: "102")).get().source == .cache)
        #expect(await isCachedInGraphQL(alice, accountId: "102"))
    }

    @Test("switching away from an account the session never read removes nothing")
    func accountSwitchUnknown() async throws {
        let fixture = try await MigrationFixture("migstep4switchnone")
        let alice = fixture.alice()
        try await populateBalances(alice)

        let report = await fixture.bff.switchAccount(alice, from: "999")

        #expect(report.succeeded && report.entries == 0 && report.records == 0)
        #expect(await isCachedInGraphQL(alice, accountId: "101"))
    }

    @Test("pull-to-refresh fetches both protocols once and stores what it got")
    func pullToRefresh() async throws {
        let fixture = try await MigrationFixture("migstep4refresh")
        let alice = fixture.alice()
        try await populateBalances(alice)

        let refreshed = try await fixture.bff.refreshBalances(alice, accountId: "101")

        #expect(refreshed.rest.balance == 2500 && refreshed.graphQL == 2500)
        #expect(try await fixture.calls("GET /api/accounts/101/balance") == 2)
        #expect(try await fixture.operationCalls("AccountBalance") == 2)
        #expect(try await alice.rest.performWithSource(with: BalanceRequest(accountId: "101")).get().source == .cache)
    }

    @Test("a refresh the upstream fails throws, and the cached balance is still served")
    func pullToRefreshFailure() async throws {
        let fixture = try await MigrationFixture("migstep4refreshfail")
        let alice = fixture.alice()
        try await populateBalances(alice)
        try await fixture.tenant.inject(.status(503), route: "GET /api/accounts/101/balance")

        await #expect(throws: API<BankError>.self) {
            _ = try await fixture.bff.refreshBalances(alice, accountId: "101")
        }

        let cached = try await alice.rest.performWithSource(with: BalanceRequest(accountId: "101")).get()
        #expect(cached.source == .cache && cached.data.balance == 2500)
        #expect(await isCachedInGraphQL(alice, accountId: "101"))
    }

    @Test("a stale timeout needs no call: past 30 s both protocols fetch again by themselves")
    func staleTimeout() async throws {
        let fixture = try await MigrationFixture("migstep4stale")
        let alice = fixture.alice()
        try await populateBalances(alice)

        fixture.clock.advance(seconds: 29)
        #expect(try await alice.rest.performWithSource(with: BalanceRequest(accountId: "101")).get().source == .cache)
        #expect(try await alice.graphQL.fetch(query: AccountBalanceQuery(accountId: "101")).get().source == .cache)
        fixture.clock.advance(seconds: 2)
        #expect(try await alice.rest.performWithSource(with: BalanceRequest(accountId: "101")).get().source == .network)
        #expect(try await alice.graphQL.fetch(query: AccountBalanceQuery(accountId: "101")).get().source == .network)
    }

    @Test("clearing the timestamps makes every cached GraphQL answer stale at once, without removing it")
    func expireGraphQLAnswers() async throws {
        let fixture = try await MigrationFixture("migstep4timestamps")
        let alice = fixture.alice()
        try await populateBalances(alice)

        let report = await fixture.bff.expireGraphQLAnswers(alice)

        #expect(report.timestamps == 1)
        let cacheOnly = try await alice.graphQL.fetch(
            query: AccountBalanceQuery(accountId: "101"), cachePolicy: .returnCacheDataDontFetch
        ).get()
        #expect(cacheOnly.isStale)
        #expect(try await alice.graphQL.fetch(query: AccountBalanceQuery(accountId: "101")).get().source == .network)
    }

    @Test("error recovery drops the query's cached answer and fetches it again")
    func errorRecovery() async throws {
        let fixture = try await MigrationFixture("migstep4recover")
        let alice = fixture.alice()
        try await populateBalances(alice)

        let recovered = try await fixture.bff.recoverBalance(alice, accountId: "101").get()

        #expect(recovered.source == .network)
        #expect(recovered.data.account?.balance == 2500)
        #expect(try await fixture.operationCalls("AccountBalance") == 2)
    }

    @Test("a recovery the upstream fails is a typed error; the session's other cached data stays")
    func errorRecoveryFailure() async throws {
        let fixture = try await MigrationFixture("migstep4recoverfail")
        let alice = fixture.alice()
        try await populateBalances(alice)
        _ = try await alice.graphQL.fetch(operation: accountSummaryOperation).get()
        try await fixture.tenant.inject(.status(500), operation: "AccountBalance")

        let result = await fixture.bff.recoverBalance(alice, accountId: "101")

        #expect(!result.isSuccess)
        let summary = await alice.graphQL.fetch(
            operation: accountSummaryOperation, cachePolicy: .returnCacheDataDontFetch)
        #expect(summary.isSuccess)
        #expect(try await alice.rest.performWithSource(with: BalanceRequest(accountId: "101")).get().source == .cache)
    }

    @Test("a settings change applies at once: the changed domain is cleared and then follows its new policy")
    func settingsChange() async throws {
        let fixture = try await MigrationFixture("migstep4settings")
        let alice = fixture.alice()
        try await populateBalances(alice)
        _ = try await alice.rest.perform(with: AccountsRequest()).get()
        let file = try TemporarySettingsFile(
            #"{ "domainMap": "banking", "domains": { "balances": { "policy": "never" } } }"#)
        defer { file.remove() }

        let change = try await fixture.bff.reloadSettings(path: file.path)

        #expect(change.affectedDomains == [.balances])
        #expect(try await alice.rest.performWithSource(with: BalanceRequest(accountId: "101")).get().source == .network)
        #expect(try await alice.rest.performWithSource(with: BalanceRequest(accountId: "101")).get().source == .network)
        #expect(!(await isCachedInGraphQL(alice, accountId: "101")))
        #expect(try await alice.rest.performWithSource(with: AccountsRequest()).get().source == .cache)
    }

    @Test("a broken settings file is refused with its place; the settings and the cache stay as they were")
    func brokenSettings() async throws {
        let fixture = try await MigrationFixture("migstep4broken")
        let alice = fixture.alice()
        try await populateBalances(alice)
        let before = fixture.bff.hub.settings.current
        let file = try TemporarySettingsFile(
            #"{ "domainMap": "banking", "domains": { "balances": { "policy": "sometimes" } } }"#)
        defer { file.remove() }

        let error = await #expect(throws: UnifiedCacheError.self) {
            try await fixture.bff.reloadSettings(path: file.path)
        }

        #expect(error?.code == .invalidSettings)
        #expect(error?.place == "domains.balances.policy")
        #expect(fixture.bff.hub.settings.current == before)
        #expect(try await alice.rest.performWithSource(with: BalanceRequest(accountId: "101")).get().source == .cache)
        #expect(await isCachedInGraphQL(alice, accountId: "101"))
    }
}
