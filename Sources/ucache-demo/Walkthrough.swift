import FixtureSupport
import Foundation
import UnifiedCache

/// The seeds' real-world scenario as a backend-for-frontend serves it: two users at once, dashboards, a payment,
/// pull-to-refresh, a stale timeout, an account switch, a settings change and a logout — with proof that the other
/// user was never touched. Time is a manual clock, so "40 seconds later" takes no time.
struct Walkthrough {
    let tenant: FixtureTenant
    let clock = ManualCacheClock()

    func run() async throws -> [String] {
        let hub = try CacheHub(
            configuration: .init(restBaseURL: tenant.baseURL, graphQLEndpoint: tenant.graphqlURL).withBankingPresets(),
            settings: SettingsStore(settings: .banking),
            clock: clock
        )
        let alice = hub.session(
            id: "alice-session", principal: VerifiedPrincipal("alice"),
            credentials: .bearer(FixtureTenant.User.alice.token))
        let bob = hub.session(
            id: "bob-session", principal: VerifiedPrincipal("bob"), credentials: .bearer(FixtureTenant.User.bob.token))
        let table = StepTable(tenant: tenant)
        try await table.start()

        try await table.step(
            "1", "alice opens the dashboard (REST + 2 GraphQL)", expectSource: "network",
            expectUpstream: 3
        ) { try await dashboard(alice, account: "101") }
        try await table.step("2", "bob opens his dashboard", expectSource: "network", expectUpstream: 3) {
            try await dashboard(bob, account: "201")
        }
        try await table.step("3", "alice's dashboard again", expectSource: "cache", expectUpstream: 0) {
            try await dashboard(alice, account: "101")
        }
        let before = try await balance(alice, "101", policy: .returnCacheDataDontFetch).balance

        let registry = GraphQLQueryRegistry()
        registry.register(AccountBalanceQuery.self)
        registry.register(TransactionHistoryQuery.self)
        let refetcher = SmartMutationRefetchManager(client: alice.graphQL, registry: registry)
        try await table.step(
            "4", "alice pays 25.00 (mutation + Strategy 2 refetches)", expectSource: "network",
            expectUpstream: 3
        ) {
            let outcome = await refetcher.perform(
                mutation: MakePaymentMutation(fromAccountId: "101", payeeId: "payee-alice-1", amount: 25),
                refetching: PaymentRefetches(accountId: "101"),
                accountId: "101"
            )
            let paid = try outcome.result.get()
            table.expect(paid.data.makePayment.account.balance == before - 25, "the mutation returns the new balance")
            table.expect(outcome.refetch?.critical.succeeded == true, "the critical refetch is done when it returns")
            let background = await outcome.refetch?.background.report()
            table.expect(background?.succeeded == true, "the history refetch followed in the background")
            return paid.source.rawValue
        }
        let updated = try await balance(alice, "101", policy: .returnCacheDataDontFetch)
        table.expect(updated.balance == before - 25, "a cache-only read of the balance already shows it (normalized)")
        try await table.step(
            "5", "REST account summary: invalidated by the payment", expectSource: "network",
            expectUpstream: 1
        ) {
            // Entity links: the GraphQL mutation changed Account:101, which the cached REST summary describes.
            try await alice.rest.performWithSource(with: AccountSummaryRequest()).get().source.rawValue
        }
        try await table.step("6", "pull-to-refresh of the balance", expectSource: "network", expectUpstream: 1) {
            try await source(
                alice.graphQL.fetch(
                    query: AccountBalanceQuery(accountId: "101"),
                    cachePolicy: .fetchIgnoringCacheData))
        }
        try await table.step("7", "settings: balances stay fresh 30 s (reload)", expectUpstream: 0) {
            let json = Data(#"{"domainMap": "banking", "domains": {"balances": {"policy": 30}}}"#.utf8)
            let change = try await hub.reloadSettings(from: .json(json, source: "demo"))
            table.expect(change.affectedDomains.contains(.balances), "the reload reports the balances domain")
            return "settings"
        }
        clock.advance(by: .seconds(40))
        try await table.step(
            "8", "40 s later: the balance is stale, refetched", expectSource: "network",
            expectUpstream: 1
        ) {
            try await source(alice.graphQL.fetch(query: AccountBalanceQuery(accountId: "101")))
        }
        try await table.step(
            "8b", "… while the account summary (60 s) is fresh", expectSource: "cache",
            expectUpstream: 0
        ) {
            try await alice.rest.performWithSource(with: AccountSummaryRequest()).get().source.rawValue
        }
        try await table.step("9", "account switch: clearCache(forAccountId: 101)", expectUpstream: 0) {
            let report = await alice.cacheManager.clearCache(forAccountId: "101")
            table.expect(report.succeeded && report.records > 0, "account 101's GraphQL record is gone")
            return "cleared"
        }
        try await table.step("9b", "balance of 101 after the switch", expectSource: "network", expectUpstream: 1) {
            try await source(alice.graphQL.fetch(query: AccountBalanceQuery(accountId: "101")))
        }
        try await table.step("10", "settings change: profiles never cached", expectUpstream: 2) {
            let json = Data(
                #"{"domainMap": "banking", "domains": {"balances": {"policy": 30}, "userProfile": {"policy": "never"}}}"#
                    .utf8)
            try await hub.reloadSettings(from: .json(json, source: "demo"), clearingAffectedDomains: true)
            _ = try await alice.graphQL.fetch(query: UserProfileQuery()).get()
            return try await source(alice.graphQL.fetch(query: UserProfileQuery()))
        }
        try await table.step("11", "alice logs out: endSession (clearAllCaches)", expectUpstream: 0) {
            guard let report = await hub.endSession(id: "alice-session") else { throw FixtureError("no session") }
            table.expect(report.succeeded, "logout cleared every part in \(StepTable.format(report.duration))")
            let statistics = alice.cacheManager.getCacheStatistics()
            table.expect(statistics.rest.entryCount == 0 && statistics.graphQLRecords == 0, "nothing of alice is left")
            return "cleared"
        }
        try await table.step(
            "12", "bob's account summary: still cached, still his", expectSource: "cache",
            expectUpstream: 0
        ) {
            let result = try await bob.rest.performWithSource(with: AccountSummaryRequest()).get()
            table.expect(result.data.map(\.id) == ["201", "202"], "bob sees his accounts, 201 and 202")
            let bobStatistics = bob.cacheManager.getCacheStatistics()
            table.expect(
                bobStatistics.graphQLRecords > 0, "bob's \(bobStatistics.graphQLRecords) GraphQL records survived")
            table.expect(
                hub.graphQLStore.record("Account:201", in: bob.scope) != nil, "Account:201 is still in his scope")
            table.expect(hub.graphQLStore.record("Account:101", in: bob.scope) == nil, "alice's account never was")
            return result.source.rawValue
        }

        printStatistics(hub)
        await hub.shutdown()
        return table.failures
    }

    /// The dashboard: REST account summary, GraphQL balance and profile. Returns the combined source.
    private func dashboard(_ session: CacheSession, account: String) async throws -> String {
        let summary = try await session.rest.performWithSource(with: AccountSummaryRequest()).get().source.rawValue
        let balance = try await source(session.graphQL.fetch(query: AccountBalanceQuery(accountId: account)))
        let profile = try await source(session.graphQL.fetch(query: UserProfileQuery()))
        let sources = Set([summary, balance, profile])
        return sources.count == 1 ? summary : "mixed"
    }

    private func balance(
        _ session: CacheSession,
        _ account: String,
        policy: GraphQLCachePolicy
    ) async throws -> AccountBalanceQuery.Data.Account {
        let result = await session.graphQL.fetch(query: AccountBalanceQuery(accountId: account), cachePolicy: policy)
        guard let found = try result.get().data.account else { throw FixtureError("no account \(account)") }
        return found
    }

    private func source<Data>(_ result: Result<GraphQLResult<Data>, GraphQLCacheError>) throws -> String {
        let value = try result.get()
        return value.isStale ? "stale" : value.source.rawValue
    }

    private func printStatistics(_ hub: CacheHub) {
        let statistics = hub.statistics()
        print("\nstatistics (whole hub)")
        for (name, part) in [("REST", statistics.rest), ("GraphQL", statistics.graphQL)] {
            print(
                "  \(name.padding(toLength: 8, withPad: " ", startingAt: 0)) hits \(part.hits), misses \(part.misses), "
                    + "stale \(part.staleHits), network fetches \(part.networkFetches), "
                    + String(format: "hit rate %.0f %%", part.hitRate * 100)
            )
        }
        print("  live sessions \(hub.sessionCount), memory \(hub.budget.usedBytes) of \(hub.budget.limit) bytes")
    }
}
