import FixtureSupport
import Foundation
import GraphQLCache
import RESTCache
import Testing
import UnifiedCache

@Suite("Defaults are neutral; the bank's presets are opt-in")
struct NeutralDefaultsTests {
    @Test("CacheSettings() has an empty domain map; CacheSettings.banking has the bank's")
    func settingsDefault() {
        #expect(CacheSettings().domainMap.domains.isEmpty)
        #expect(CacheSettings().domainMap == CacheDomainMap())
        #expect(CacheSettings.banking.domainMap == CacheDomainMap.banking)
        #expect(CacheSettings.banking.domainMap[.balances] != nil)
        var banking = CacheSettings.banking
        banking.domainMap = CacheDomainMap()
        #expect(banking == CacheSettings(), "the preset differs from the defaults in the domain map alone")
    }

    @Test("a settings file without domainMap starts from the empty map; \"domainMap\": \"banking\" opts in")
    func fileDefault() throws {
        #expect(try parseSettings("{}").domainMap.domains.isEmpty)
        #expect(try parseSettings(#"{"domainMap": "empty"}"#) == CacheSettings())
        #expect(try parseSettings(#"{"domainMap": "banking"}"#) == CacheSettings.banking)
        let opted = try parseSettings(#"{"domainMap": "banking", "domains": {"balances": {"policy": 30}}}"#)
        #expect(opted.policy(for: .balances) == .custom(seconds: 30))
        #expect(try SettingsStore(environment: [:]).current.domainMap.domains.isEmpty)
    }

    @Test("a bank domain's policy without the preset is refused as unknownDomain, naming the place")
    func bankDomainWithoutPreset() {
        let error = unifiedError { try parseSettings(#"{"domains": {"balances": {"policy": 30}}}"#) }
        #expect(error?.code == .unknownDomain)
        #expect(error?.place == "domains.balances")
        #expect(unifiedError { try SettingsStore(environment: ["UCACHE_DOMAIN_BALANCES": "never"]) } != nil)
    }

    @Test("CacheHub.Configuration has no entity links and no account-learning paths; withBankingPresets sets both")
    func configurationDefault() {
        let neutral = CacheHub.Configuration(restBaseURL: "http://127.0.0.1:1", graphQLEndpoint: "http://127.0.0.1:1/g")
        #expect(neutral.entityLinks.reads.isEmpty)
        #expect(neutral.entityLinks.mutations.isEmpty)
        #expect(neutral.accountLearningPaths.isEmpty)
        let banking = neutral.withBankingPresets()
        #expect(banking.entityLinks.reads.map(\.pattern) == EntityLinks.banking.reads.map(\.pattern))
        #expect(banking.entityLinks.mutations.map(\.pattern) == EntityLinks.banking.mutations.map(\.pattern))
        #expect(banking.accountLearningPaths == CacheHub.Configuration.bankingAccountLearningPaths)
        #expect(banking.accountLearningPaths == ["/api/accounts", "/api/accounts/**"])
        #expect(banking.restBaseURL == neutral.restBaseURL)
    }

    @Test("a neutral hub learns no account pairs from the account list; a hub with the presets does")
    func accountLearning() async throws {
        let accounts = CachedGET(path: "/api/accounts", key: "accountSummary.list")
        let neutral = try await FacadeHarness("neutrallearn", bankingPresets: false)
        let neutralAlice = neutral.session(.alice)
        _ = try await neutralAlice.rest.perform(with: accounts).get()
        #expect(neutralAlice.accounts.learnedPairCount == 0)

        let banking = try await FacadeHarness("bankinglearn")
        let bankingAlice = banking.session(.alice)
        _ = try await bankingAlice.rest.perform(with: accounts).get()
        #expect(bankingAlice.accounts.learnedPairCount > 0)
    }

    @Test("without entity links a REST payment leaves the GraphQL balance cached; with the presets it evicts it")
    func entityLinks() async throws {
        let neutral = try await FacadeHarness("neutrallinks", bankingPresets: false)
        let neutralAlice = neutral.session(.alice)
        #expect(await neutralAlice.graphQL.fetch(operation: accountBalanceQuery).isSuccess)
        _ = try await neutralAlice.rest.perform(with: RESTPayment()).get()
        let kept = await neutralAlice.graphQL.fetch(
            operation: accountBalanceQuery, cachePolicy: .returnCacheDataDontFetch)
        #expect(kept.isSuccess)

        let banking = try await FacadeHarness("bankinglinks")
        let bankingAlice = banking.session(.alice)
        #expect(await bankingAlice.graphQL.fetch(operation: accountBalanceQuery).isSuccess)
        _ = try await bankingAlice.rest.perform(with: RESTPayment()).get()
        let evicted = await bankingAlice.graphQL.fetch(
            operation: accountBalanceQuery, cachePolicy: .returnCacheDataDontFetch)
        #expect(!evicted.isSuccess)
    }

    @Test("on a neutral hub clearBalancesCache clears by the preset's prefixes and GraphQL fields")
    func granularClearFallsBackToThePreset() async throws {
        let harness = try await FacadeHarness("neutralclear", bankingPresets: false)
        let alice = harness.session(.alice)
        let balance = CachedGET(path: "/api/accounts/101/balance", key: "balances.101")
        let summary = CachedGET(path: "/api/accounts", key: "accountSummary.list")
        _ = try await alice.rest.perform(with: balance).get()
        _ = try await alice.rest.perform(with: summary).get()
        #expect(await alice.graphQL.fetch(operation: accountBalanceQuery).isSuccess)

        let report = await alice.cacheManager.clearBalancesCache()

        #expect(report.succeeded, "\(report)")
        #expect(report.operation == "clearBalancesCache()")
        #expect(try await alice.rest.performWithSource(with: balance).get().source == .network)
        #expect(try await alice.rest.performWithSource(with: summary).get().source == .cache)
        let cached = await alice.graphQL.fetch(operation: accountBalanceQuery, cachePolicy: .returnCacheDataDontFetch)
        #expect(!cached.isSuccess, "the balance fields should have been evicted")
        #expect(harness.hub.settings.current.domainMap.domains.isEmpty, "the fallback does not change the map")
    }

    @Test("on a neutral hub an entry found only by the preset's route stays; with the preset in force it goes")
    func routeMembershipNeedsThePreset() async throws {
        let byRouteOnly = CachedGET(path: "/api/accounts/101/balance", key: "mine.101")
        let neutral = try await FacadeHarness("neutralroute", bankingPresets: false)
        let neutralAlice = neutral.session(.alice)
        _ = try await neutralAlice.rest.perform(with: byRouteOnly).get()
        #expect(await neutralAlice.cacheManager.clearBalancesCache().succeeded)
        #expect(try await neutralAlice.rest.performWithSource(with: byRouteOnly).get().source == .cache)

        let banking = try await FacadeHarness("bankingroute")
        let bankingAlice = banking.session(.alice)
        _ = try await bankingAlice.rest.perform(with: byRouteOnly).get()
        #expect(await bankingAlice.cacheManager.clearBalancesCache().succeeded)
        #expect(try await bankingAlice.rest.performWithSource(with: byRouteOnly).get().source == .network)
    }

    @Test("a domain neither the map nor the preset knows is an unknownDomain failure on a neutral hub")
    func unknownDomainStillFails() async throws {
        let harness = try await FacadeHarness("neutralunknown", bankingPresets: false)
        let alice = harness.session(.alice)
        let report = await alice.cacheManager.clear(domain: "search")
        #expect(!report.succeeded)
        #expect(report.failures.first?.failure?.contains("unknownDomain") == true, "\(report)")
    }
}
