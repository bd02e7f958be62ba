import CacheCore
import FixtureSupport
import GraphQLCache
import Testing

@Suite("GraphQLCacheManager: every clear reports what it removed")
struct ClientCacheManagerTests {
    /// Alice's client with her summary, one balance, recent transactions and profile cached.
    private func populated(_ label: String, keyed: Bool = true) async throws -> (ClientHarness, GraphQLClient) {
        let harness = try await ClientHarness(label, keyed: keyed)
        let client = try harness.client()
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        _ = try await client.fetch(query: AccountBalanceQuery(id: "101")).value()
        _ = try await client.fetch(query: AccountBalanceQuery(id: "102")).value()
        _ = try await client.fetch(query: RecentTransactionsQuery(accountId: "101")).value()
        _ = try await client.fetch(query: ProfileQuery()).value()
        return (harness, client)
    }

    private func isCached<Query: GraphQLQuery>(_ client: GraphQLClient, _ query: Query) async -> Bool {
        (try? await client.fetch(query: query, cachePolicy: .returnCacheDataDontFetch).get()) != nil
    }

    @Test("clearCache() empties the session and its timestamps (logout)")
    func clearAll() async throws {
        let (harness, client) = try await populated("mgrall")
        let records = harness.store.recordCount(in: client.scope)
        let report = await client.cacheManager().clearCache()
        #expect(report.records == records)
        #expect(report.bytes > 0)
        #expect(report.timestamps == 5)
        #expect(report.reason == .manual)
        #expect(harness.store.recordCount(in: client.scope) == 0)
        #expect(!(await isCached(client, ProfileQuery())))
        let again = await client.cacheManager().clearCache(reason: .logout)
        #expect(again.isEmpty)
    }

    @Test("clearCache(forAccountId:) removes the account, the queries naming it and dangling references")
    func clearAccount() async throws {
        let (harness, client) = try await populated("mgraccount")
        let manager = client.cacheManager()
        let report = await manager.clearCache(forAccountId: "101")
        #expect(report.target == .account("101"))
        #expect(report.reason == .accountSwitch)
        #expect(report.removedRecordKeys.contains("Account:101"))
        #expect(report.removedRecordKeys.contains("Transaction:tx-101-1"))
        #expect(report.timestamps == 2)
        #expect(harness.store.record("Account:101", in: client.scope) == nil)
        #expect(!(await isCached(client, AccountBalanceQuery(id: "101"))))
        #expect(!(await isCached(client, RecentTransactionsQuery(accountId: "101"))))
        // The summary listed account 101: its list field went with the dangling reference.
        #expect(!(await isCached(client, AccountSummaryQuery())))
        // What does not concern the account stays.
        #expect(await isCached(client, AccountBalanceQuery(id: "102")))
        #expect(await isCached(client, ProfileQuery()))
        #expect(
            client.queryTimestamps.map(\.queryKey.text).sorted() == [
                "AccountBalance({\"id\":\"102\"})", "AccountSummary", "Profile",
            ])
    }

    @Test("an account clear also works without key providers (query-based storage)")
    func clearAccountQueryBased() async throws {
        let (harness, client) = try await populated("mgraccountpaths", keyed: false)
        let report = await client.cacheManager().clearCache(forAccountId: "101")
        #expect(report.records > 0)
        #expect(!(await isCached(client, AccountBalanceQuery(id: "101"))))
        #expect(!(await isCached(client, RecentTransactionsQuery(accountId: "101"))))
        #expect(await isCached(client, AccountBalanceQuery(id: "102")))
        #expect(harness.store.recordKeys(in: client.scope).allSatisfy { !$0.contains("\"101\"") })
    }

    @Test("an unknown account clears nothing but still reports")
    func clearUnknownAccount() async throws {
        let (harness, client) = try await populated("mgrnoaccount")
        let before = harness.store.recordCount(in: client.scope)
        let report = await client.cacheManager().clearCache(forAccountId: "999")
        #expect(report.records == 0)
        #expect(report.timestamps == 0)
        #expect(harness.store.recordCount(in: client.scope) == before)
    }

    @Test("clearCache(forQuery:) by key clears that query only; by operation name every key of it")
    func clearQuery() async throws {
        let (_, client) = try await populated("mgrquery")
        let manager = client.cacheManager()
        let byKey = await manager.clearCache(forQuery: #"AccountBalance({"id":"101"})"#)
        #expect(byKey.timestamps == 1)
        #expect(byKey.fields >= 1)
        #expect(!(await isCached(client, AccountBalanceQuery(id: "101"))))
        #expect(await isCached(client, AccountBalanceQuery(id: "102")))
        // The shared record stays: the summary still answers.
        #expect(await isCached(client, AccountSummaryQuery()))

        _ = try await client.fetch(query: AccountBalanceQuery(id: "101")).value()
        let byName = await manager.clearCache(forQuery: "AccountBalance")
        #expect(byName.timestamps == 2)
        #expect(!(await isCached(client, AccountBalanceQuery(id: "101"))))
        #expect(!(await isCached(client, AccountBalanceQuery(id: "102"))))
        #expect(await isCached(client, ProfileQuery()))

        let unknown = await manager.clearCache(forQuery: "NoSuchQuery")
        #expect(unknown.isEmpty)
    }

    @Test("a query key's variables may be given in any order")
    func clearQueryKeyOrder() async throws {
        let (_, client) = try await populated("mgrqueryorder")
        let report = await client.cacheManager().clearCache(
            forQuery: #"RecentTransactions({"first":3,"accountId":"101"})"#)
        #expect(report.timestamps == 1)
        #expect(!(await isCached(client, RecentTransactionsQuery(accountId: "101"))))
    }

    @Test("pattern, typename, record, field and garbage clears")
    func granularClears() async throws {
        let (harness, client) = try await populated("mgrgranular")
        let manager = client.cacheManager()

        let transactions = try await manager.clearCache(matching: "Transaction:tx-101-*")
        #expect(transactions.records == 3)
        #expect(!(await isCached(client, RecentTransactionsQuery(accountId: "101"))))
        await #expect(throws: GraphQLCacheError.self) { try await manager.clearCache(matching: "Account:[") }

        let profiles = await manager.clearCache(forTypename: "Profile")
        #expect(profiles.removedRecordKeys == ["Profile:alice"])
        #expect(!(await isCached(client, ProfileQuery())))

        let balances = try await manager.evictField(coordinate: "Account.balance")
        #expect(balances.fields == 2)
        #expect(balances.records == 0)
        #expect(balances.removedRecordKeys.isEmpty)
        #expect(harness.store.record("Account:101", in: client.scope) != nil)
        #expect(!(await isCached(client, AccountSummaryQuery())))
        await #expect(throws: GraphQLCacheError.self) { try await manager.evictField(coordinate: "balance") }

        let record = await manager.removeRecord("Account:102")
        #expect(record.records == 1)
        #expect(record.fields > 0)

        let garbage = await manager.collectGarbage()
        #expect(garbage.target == .garbage)

        let timestamps = await manager.clearTimestamps()
        #expect(timestamps.timestamps == 5)
        #expect(client.queryTimestamps.isEmpty)
    }

    @Test("report descriptions never show account ids or query variables")
    func reportDescriptions() async throws {
        let (_, client) = try await populated("mgrdescription")
        let manager = client.cacheManager()
        let account = await manager.clearCache(forAccountId: "101")
        #expect(account.records > 0)
        #expect(!Self.reveals(account.description, "101"))
        let query = await manager.clearCache(forQuery: #"AccountBalance({"id":"102"})"#)
        #expect(!Self.reveals(query.description, "102"))
        #expect(!query.description.contains("AccountBalance"))
    }

    /// Whether `identifier` appears in `text` as a word of its own (`101`, `Account:101`, `"id":"101"`).
    /// A plain substring test would also match digits of the duration or of a hash (`0.000210123 seconds`).
    static func reveals(_ text: String, _ identifier: String) -> Bool {
        text.split(whereSeparator: { !$0.isLetter && !$0.isNumber }).contains { $0 == identifier }
    }

    @Test("the leak check finds an identifier in every form a description could carry it")
    func leakCheckFindsIdentifiers() {
        for leaking in ["account 101", "Account:101 removed", #"{"id":"101"}"#, "(101)"] {
            #expect(Self.reveals(leaking, "101"))
        }
        for clean in ["0.000210123 seconds", "session(#a101bc9e)", "1010 bytes"] {
            #expect(!Self.reveals(clean, "101"))
        }
    }
}
