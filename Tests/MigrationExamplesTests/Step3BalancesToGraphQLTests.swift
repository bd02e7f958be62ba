import FixtureSupport
import Foundation
import GraphQLCache
import RESTCache
import Testing
import UnifiedCache

@Suite("Step 3: balances move from REST to GraphQL and clearBalancesCache() keeps clearing them")
struct Step3BalancesToGraphQLTests {
    @Test("the GraphQL route answers what the REST route answered")
    func sameAnswer() async throws {
        let fixture = try await MigrationFixture("migstep3same")
        let bff = fixture.bff

        let rest = try await bff.balance(
            sessionID: "session-alice", userID: "alice", token: "token-alice", accountId: "102")
        let graphQL = try await bff.balanceFromGraphQL(
            sessionID: "session-alice", userID: "alice", token: "token-alice", accountId: "102")
        let cached = try await bff.balanceFromGraphQL(
            sessionID: "session-alice", userID: "alice", token: "token-alice", accountId: "102")

        #expect(graphQL == rest)
        #expect(cached == rest)
        #expect(try await fixture.operationCalls("AccountBalance") == 1)
    }

    @Test("clearBalancesCache() clears the REST balance and its GraphQL successor, and nothing else")
    func oneClearForBothProtocols() async throws {
        let fixture = try await MigrationFixture("migstep3clear")
        let alice = fixture.alice()
        let bob = fixture.bob()
        _ = try await alice.rest.perform(with: BalanceRequest(accountId: "101")).get()
        _ = try await alice.graphQL.fetch(query: AccountBalanceQuery(accountId: "101")).get()
        _ = try await alice.rest.perform(with: AccountsRequest()).get()
        _ = try await alice.graphQL.fetch(operation: accountSummaryOperation).get()
        _ = try await bob.graphQL.fetch(query: AccountBalanceQuery(accountId: "201")).get()

        let report = await alice.cacheManager.clearBalancesCache()

        #expect(report.succeeded)
        #expect(report.entries == 1)
        #expect(report.fields >= 2)
        #expect(try await alice.rest.performWithSource(with: BalanceRequest(accountId: "101")).get().source == .network)
        let balance = await alice.graphQL.fetch(
            query: AccountBalanceQuery(accountId: "101"), cachePolicy: .returnCacheDataDontFetch)
        #expect(!balance.isSuccess)
        #expect(try await alice.rest.performWithSource(with: AccountsRequest()).get().source == .cache)
        let summary = await alice.graphQL.fetch(
            operation: accountSummaryOperation, cachePolicy: .returnCacheDataDontFetch)
        #expect(summary.isSuccess)
        let bobs = await bob.graphQL.fetch(
            query: AccountBalanceQuery(accountId: "201"), cachePolicy: .returnCacheDataDontFetch)
        #expect(bobs.isSuccess)
    }

    @Test("the GraphQL route refuses another user's account with a typed error and caches nothing")
    func foreignAccountOverGraphQL() async throws {
        let fixture = try await MigrationFixture("migstep3foreign")
        await #expect(throws: GraphQLCacheError.self) {
            _ = try await fixture.bff.balanceFromGraphQL(
                sessionID: "session-bob", userID: "bob", token: "token-bob", accountId: "101")
        }
        #expect(fixture.bob().cacheManager.getCacheStatistics().graphQLRecords == 0)
    }

    @Test("a domain of your own is cleared by its method, in GraphQL, and the balances stay")
    func customDomain() async throws {
        let fixture = try await MigrationFixture(
            "migstep3search", settings: SettingsStore(settings: settingsWithSearchDomain()))
        let alice = fixture.alice()
        _ = try await alice.graphQL.fetch(operation: searchOperation).get()
        _ = try await alice.graphQL.fetch(query: AccountBalanceQuery(accountId: "101")).get()

        let report = await alice.cacheManager.clearSearchCache()

        #expect(report.succeeded, "\(report)")
        #expect(report.operation == "clearSearchCache()")
        #expect(report.fields + report.records >= 1)
        let search = await alice.graphQL.fetch(operation: searchOperation, cachePolicy: .returnCacheDataDontFetch)
        #expect(!search.isSuccess)
        let balance = await alice.graphQL.fetch(
            query: AccountBalanceQuery(accountId: "101"), cachePolicy: .returnCacheDataDontFetch)
        #expect(balance.isSuccess)
        #expect(fixture.bff.hub.settings.current.policy(for: .search) == .custom(seconds: 60))
    }

    @Test("without the declaration the clear reports an unknown domain and removes nothing")
    func undeclaredDomain() async throws {
        let fixture = try await MigrationFixture("migstep3undeclared")
        let alice = fixture.alice()
        _ = try await alice.graphQL.fetch(operation: searchOperation).get()

        let report = await alice.cacheManager.clearSearchCache()

        #expect(!report.succeeded)
        #expect(report.failures.first?.failure?.contains("unknownDomain") == true, "\(report)")
        let search = await alice.graphQL.fetch(operation: searchOperation, cachePolicy: .returnCacheDataDontFetch)
        #expect(search.isSuccess)
    }

    @Test("a malformed or duplicate declaration is refused with a typed error naming it")
    func badDeclarations() throws {
        let coordinate = #expect(throws: UnifiedCacheError.self) {
            try SchemaCoordinate("Query.search(term:)")
        }
        #expect(coordinate?.code == .invalidDomain)

        var map = try settingsWithSearchDomain().domainMap
        let duplicate = #expect(throws: UnifiedCacheError.self) {
            try map.register(CacheDomain(name: .search, graphQLOperations: ["FindAnything"]))
        }
        #expect(duplicate?.code == .duplicateDomain)
        #expect(map[.search]?.graphQLOperations == ["Search"])
    }

    @Test("the settings file of MIGRATION.md declares the same search domain as the code")
    func settingsFileMatchesCode() throws {
        let blocks = try QuotedDocuments.migrationGuide().codeBlocks()
        let block = try #require(blocks.first { $0.language == "json" && $0.lines.contains { $0.contains("search") } })
        let fromFile = try CacheSettings(json: Array(block.lines.joined(separator: "\n").utf8), source: "MIGRATION.md")

        #expect(fromFile == (try settingsWithSearchDomain()))
    }
}
