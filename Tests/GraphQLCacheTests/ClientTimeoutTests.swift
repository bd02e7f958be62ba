import CacheCore
import FixtureSupport
import GraphQLCache
import Testing

@Suite("GraphQL client: timeouts and their precedence")
struct ClientTimeoutTests {
    /// Fetches cache first and says whether the answer came from the network.
    private func fetched<Query: GraphQLQuery>(
        _ client: GraphQLClient,
        _ query: Query,
        cacheTimeout: QueryCacheTimeout? = nil
    ) async throws -> Bool {
        try await client.fetch(query: query, cacheTimeout: cacheTimeout).value().source == .network
    }

    @Test("the global default (300 s) expires answers; at exactly 300 s they are still fresh")
    func globalDefault() async throws {
        let harness = try await ClientHarness("ttlglobal")
        let client = try harness.client()
        #expect(try await fetched(client, AccountSummaryQuery()))
        harness.clock.advance(seconds: 300)
        #expect(try await !fetched(client, AccountSummaryQuery()))
        harness.clock.advance(seconds: 1)
        #expect(try await fetched(client, AccountSummaryQuery()))
        #expect(try await harness.count("AccountSummary") == 2)
    }

    @Test("a changed default applies to answers already cached; switching timeouts off stops expiry")
    func configurationChanges() async throws {
        let harness = try await ClientHarness("ttlswitch")
        let client = try harness.client(cacheConfig: GraphQLCacheConfig(defaultTimeout: 60))
        #expect(try await fetched(client, AccountSummaryQuery()))
        harness.clock.advance(seconds: 61)
        try client.updateCacheConfig(GraphQLCacheConfig(defaultTimeout: 60, isTimeoutEnabled: false))
        #expect(try await !fetched(client, AccountSummaryQuery()))
        try client.updateCacheConfig(GraphQLCacheConfig(defaultTimeout: 60))
        #expect(try await fetched(client, AccountSummaryQuery()))
    }

    @Test("an invalid configuration is refused and the rules in force stay")
    func invalidConfiguration() async throws {
        let harness = try await ClientHarness("ttlinvalid")
        #expect(throws: GraphQLCacheError.self) {
            try harness.client(cacheConfig: GraphQLCacheConfig(defaultTimeout: -1))
        }
        let client = try harness.client()
        for bad in [
            GraphQLCacheConfig(defaultTimeout: .nan),
            GraphQLCacheConfig(typeTimeouts: ["Account": .seconds(-5)]),
            GraphQLCacheConfig(fieldTimeouts: ["balance": 10]),
        ] {
            let error = #expect(throws: GraphQLCacheError.self) { try client.updateCacheConfig(bad) }
            #expect(error?.code == .invalidConfiguration)
        }
        #expect(client.cacheConfig == GraphQLCacheConfig())
    }

    @Test("a query type's CacheableQuery timeout overrides the default")
    func perQueryType() async throws {
        let harness = try await ClientHarness("ttlquery")
        let client = try harness.client()
        #expect(try await fetched(client, CacheableBalanceQuery(id: "101")))
        harness.clock.advance(seconds: 30)
        #expect(try await !fetched(client, CacheableBalanceQuery(id: "101")))
        harness.clock.advance(seconds: 1)
        #expect(try await fetched(client, CacheableBalanceQuery(id: "101")))
        #expect(try await harness.count("CacheableBalance") == 2)
    }

    @Test("an explicit cacheTimeout overrides the query type's, .never included")
    func explicitWins() async throws {
        let harness = try await ClientHarness("ttlexplicit")
        let client = try harness.client()
        #expect(try await fetched(client, CacheableBalanceQuery(id: "101"), cacheTimeout: 120))
        harness.clock.advance(seconds: 100)
        #expect(try await !fetched(client, CacheableBalanceQuery(id: "101"), cacheTimeout: 120))
        #expect(try await fetched(client, CacheableBalanceQuery(id: "101")))
        harness.clock.advance(seconds: 100_000)
        #expect(try await !fetched(client, CacheableBalanceQuery(id: "101"), cacheTimeout: .never))
        #expect(try await fetched(client, CacheableBalanceQuery(id: "101"), cacheTimeout: .useDefault))
    }

    @Test("a per-type TTL makes a query stale when any Account field it read is older than 30 s")
    func perType() async throws {
        let harness = try await ClientHarness("ttltype")
        let client = try harness.client(cacheConfig: GraphQLCacheConfig(typeTimeouts: ["Account": 30]))
        #expect(try await fetched(client, AccountSummaryQuery()))
        #expect(try await fetched(client, ProfileQuery()))
        harness.clock.advance(seconds: 31)
        #expect(try await fetched(client, AccountSummaryQuery()))
        #expect(try await !fetched(client, ProfileQuery()))
        // A query type's own timeout wins over the type rule.
        #expect(try await fetched(client, AccountBalanceQuery(id: "101"), cacheTimeout: 600))
        harness.clock.advance(seconds: 100)
        #expect(try await !fetched(client, AccountBalanceQuery(id: "101"), cacheTimeout: 600))
    }

    @Test("a per-field TTL (Account.balance) applies to that field only and beats the type's")
    func perField() async throws {
        let harness = try await ClientHarness("ttlfield")
        let config = GraphQLCacheConfig(
            typeTimeouts: ["Account": 30],
            fieldTimeouts: ["Account.name": 3_600, "Transaction.amount": 10]
        )
        let client = try harness.client(cacheConfig: config)
        let names = UntypedGraphQLOperation(document: "query Names { accounts { id name } }")
        _ = try await client.fetch(operation: names).value()
        harness.clock.advance(seconds: 31)
        // `id` is an Account field under the type's 30 s: stale.
        #expect(try await client.fetch(operation: names).value().source == .network)
        let onlyNames = UntypedGraphQLOperation(document: "query OnlyNames { accounts { name } }")
        _ = try await client.fetch(operation: onlyNames).value()
        harness.clock.advance(seconds: 1_000)
        // Root fields follow the default (300 s): 1,000 s is too old even though `name` has an hour.
        #expect(try await client.fetch(operation: onlyNames).value().source == .network)
        harness.clock.advance(seconds: 200)
        #expect(try await client.fetch(operation: onlyNames).value().source == .cache)

        _ = try await client.fetch(query: RecentTransactionsQuery(accountId: "101")).value()
        harness.clock.advance(seconds: 11)
        #expect(try await fetched(client, RecentTransactionsQuery(accountId: "101")))
    }

    @Test("a read is fresh only if every field it read is; another query's fetch renews the fields it wrote")
    func everyFieldCounts() async throws {
        let harness = try await ClientHarness("ttlshared")
        let client = try harness.client(cacheConfig: GraphQLCacheConfig(typeTimeouts: ["Account": 30]))
        let everything = UntypedGraphQLOperation(
            document: "query Everything($id: ID!) { account(id: $id) { id balance availableBalance } }",
            variables: ["id": "101"]
        )
        _ = try await client.fetch(query: AccountBalanceQuery(id: "101")).value()
        harness.clock.advance(seconds: 25)
        _ = try await client.fetch(operation: everything, cachePolicy: .fetchIgnoringCacheData).value()
        harness.clock.advance(seconds: 25)
        #expect(try await !fetched(client, AccountBalanceQuery(id: "101")))

        harness.clock.advance(seconds: 10)
        // Only `id` and `balance` are renewed; `availableBalance` is 35 s old.
        _ = try await client.fetch(query: CacheableBalanceQuery(id: "101"), cachePolicy: .fetchIgnoringCacheData)
            .value()
        #expect(try await fetched(client, AccountBalanceQuery(id: "101")))
        #expect(try await harness.count("AccountBalance") == 2)
    }

    @Test("clearTimestamps forgets them and forces a refetch of every query once")
    func clearTimestamps() async throws {
        let harness = try await ClientHarness("ttlclear")
        let client = try harness.client()
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        _ = try await client.fetch(query: AccountBalanceQuery(id: "101")).value()
        #expect(client.queryTimestamps.map(\.queryKey.operationName).sorted() == ["AccountBalance", "AccountSummary"])
        #expect(client.clearTimestamps() == 2)
        #expect(client.queryTimestamps.isEmpty)
        let cacheOnly = try await client.fetch(query: AccountSummaryQuery(), cachePolicy: .returnCacheDataDontFetch)
            .value()
        #expect(cacheOnly.isStale)
        #expect(try await fetched(client, AccountSummaryQuery()))
        #expect(try await !fetched(client, AccountSummaryQuery()))
        #expect(try await harness.count("AccountSummary") == 2)
    }

    @Test("query keys are stable under variable order and include defaults")
    func queryKeys() throws {
        let a = GraphQLQueryKey(operationName: "Q", variables: ["a": 1, "b": ["y": 2, "x": 1]])
        let b = GraphQLQueryKey(operationName: "Q", variables: ["b": ["x": 1, "y": 2], "a": 1])
        #expect(a == b)
        #expect(a.text == #"Q({"a":1,"b":{"x":1,"y":2}})"#)
        #expect(a.description == "Q(…)")
        #expect(GraphQLQueryKey(operationName: "P").text == "P")
    }

    @Test("a query's timestamp key fills in default variables")
    func timestampKeysUseDefaults() async throws {
        let harness = try await ClientHarness("ttlkeys")
        let client = try harness.client()
        _ = try await client.fetch(query: RecentTransactionsQuery(accountId: "101")).value()
        let key = try #require(client.queryTimestamps.first?.queryKey)
        #expect(key.text == #"RecentTransactions({"accountId":"101","first":3})"#)
    }
}
