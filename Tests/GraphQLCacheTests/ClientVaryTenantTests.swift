import CacheCore
import CurlHTTP
import FixtureSupport
import GraphQLCache
import Testing

/// `tenantNotice`: PUBLIC, maxAge 60, answered with `Vary: X-Tenant` and the tenant the request sent.
struct TenantNoticeQuery: GraphQLQuery {
    static let document = "query TenantNotice { tenantNotice }"
    static let operationName = "TenantNotice"

    struct Data: Decodable, Sendable, Equatable {
        var tenantNotice: String
    }
}

@Suite("Client: a shared PUBLIC answer is keyed by every header its Vary names, or not shared")
struct ClientVaryTenantTests {
    private let sharing = GraphQLClient.Configuration(sharesPublicResponses: true)

    /// A session's client whose credentials carry `headers` beside the user's bearer token.
    private func client(
        _ harness: ClientHarness, _ user: FixtureTenant.User, headers: CurlHTTPClient.Headers = [:],
        configuration: GraphQLClient.Configuration? = nil, store: GraphQLNormalizedStore? = nil
    ) throws -> GraphQLClient {
        var credentials: CurlHTTPClient.Headers = ["Authorization": user.authorization]
        for field in headers { credentials.replaceOrAdd(name: field.name, value: field.value) }
        return try GraphQLClient(
            url: harness.tenant.graphqlURL, transport: harness.transport, store: store ?? harness.store,
            scope: .session(user.rawValue), credentials: UpstreamCredentials(headers: credentials),
            configuration: configuration ?? sharing, documents: harness.documents)
    }

    @Test("a tenant sent through the session's credentials is a credential: tenant B never gets tenant A's answer")
    func credentialTenantNeverCrosses() async throws {
        let harness = try await ClientHarness("vary-credential")
        let alice = try client(harness, .alice, headers: ["X-Tenant": "acme"])
        let bob = try client(harness, .bob, headers: ["X-Tenant": "globex"])
        #expect(try await alice.fetch(query: TenantNoticeQuery()).value().data.tenantNotice == "notice for acme")
        #expect(harness.store.sharedPublicResponseCount == 0)
        let forBob = try await bob.fetch(query: TenantNoticeQuery()).value()
        #expect(forBob.data.tenantNotice == "notice for globex")
        #expect(forBob.source == .network)
        #expect(try await harness.count("TenantNotice") == 2)
    }

    @Test("a tenant the transport's decorator sets keys the shared answer: the same tenant shares, another does not")
    func decoratedTenantKeysTheAnswer() async throws {
        var transport = CurlHTTPClient.Configuration()
        // A gateway's mapping of users to tenants: alice and bob are acme's, carol globex's.
        transport.requestDecorator = { request in
            let user = request.headers["Authorization"] ?? ""
            request.headers.replaceOrAdd(name: "X-Tenant", value: user.hasSuffix("carol") ? "globex" : "acme")
        }
        let harness = try await ClientHarness("vary-decorated", transportConfiguration: transport)
        let alice = try client(harness, .alice)
        let bob = try client(harness, .bob)
        let carol = try client(harness, .carol)
        #expect(try await alice.fetch(query: TenantNoticeQuery()).value().data.tenantNotice == "notice for acme")
        let forBob = try await bob.fetch(query: TenantNoticeQuery()).value()
        #expect(forBob.source == .cache)
        #expect(forBob.data.tenantNotice == "notice for acme")
        let forCarol = try await carol.fetch(query: TenantNoticeQuery()).value()
        #expect(forCarol.data.tenantNotice == "notice for globex")
        #expect(forCarol.source == .network)
        #expect(try await harness.count("TenantNotice") == 2)
        #expect(harness.store.sharedPublicResponseCount == 2)
        #expect(harness.store.sharedPublicResponseHits == 1)
    }

    @Test("Vary: * and a Vary on a standard or default extra credential (X-Api-Key) are never shared")
    func varyStarAndCredentialsNotShared() async throws {
        let harness = try await ClientHarness("vary-credential-names")
        for (index, vary) in ["*", "X-Api-Key", "Accept, Proxy-Authorization"].enumerated() {
            try await harness.overrideCacheHints(header: "max-age=60, public", vary: vary)
            let first = try client(harness, .alice, configuration: sharing)
            _ = try await first.fetch(query: ExchangeRatesQuery(), cachePolicy: .fetchIgnoringCacheData).value()
            #expect(harness.store.sharedPublicResponseCount == 0, "Vary: \(vary)")
            let other = try GraphQLClient(
                url: harness.tenant.graphqlURL, transport: harness.transport, store: harness.store,
                scope: .session("other-\(index)"), credentials: .bearer(FixtureTenant.User.bob.token),
                configuration: sharing, documents: harness.documents)
            #expect(try await other.fetch(query: ExchangeRatesQuery()).value().source == .network, "Vary: \(vary)")
        }
        #expect(try await harness.count("ExchangeRates") == 6)
    }

    @Test("the extra credential names are configurable: a listed header's Vary is not shared, an unlisted one is")
    func configurableCredentialNames() async throws {
        let harness = try await ClientHarness("vary-configured")
        try await harness.overrideCacheHints(header: "max-age=60, public", vary: "X-Partner")
        let partnerIsCredential = GraphQLClient.Configuration(
            sharesPublicResponses: true, credentialHeaderNames: ["X-Partner"])
        _ = try await client(harness, .alice, configuration: partnerIsCredential).fetch(query: ExchangeRatesQuery())
            .value()
        #expect(harness.store.sharedPublicResponseCount == 0)

        try await harness.overrideCacheHints(header: "max-age=60, public", vary: "X-Api-Key")
        let noExtras = GraphQLClient.Configuration(sharesPublicResponses: true, credentialHeaderNames: [])
        _ = try await client(harness, .bob, configuration: noExtras).fetch(query: ExchangeRatesQuery()).value()
        #expect(harness.store.sharedPublicResponseCount == 1)
        let forCarol = try await client(harness, .carol, configuration: noExtras).fetch(query: ExchangeRatesQuery())
            .value()
        #expect(forCarol.source == .cache)
        #expect(GraphQLClient.Configuration().credentialHeaderNames == ["X-Api-Key"])
    }

    @Test("shared hits are counted: one per session served another's answer, none for the upstream's answers")
    func sharedHitsCounted() async throws {
        let harness = try await ClientHarness("vary-hits")
        let alice = try client(harness, .alice)
        let bob = try client(harness, .bob)
        let carol = try client(harness, .carol)
        _ = try await alice.fetch(query: ExchangeRatesQuery()).value()
        #expect(harness.store.sharedPublicResponseHits == 0)
        #expect(try await bob.fetch(query: ExchangeRatesQuery()).value().source == .cache)
        #expect(harness.store.sharedPublicResponseHits == 1)
        harness.clock.advance(seconds: 61)
        #expect(try await carol.fetch(query: ExchangeRatesQuery()).value().source == .network)
        #expect(harness.store.sharedPublicResponseHits == 1)
    }

    @Test("the memory budget reclaims shared answers first, before any session's records")
    func budgetReclaimsSharedAnswers() async throws {
        let harness = try await ClientHarness("vary-budget")
        let budget = try MemoryBudget(limit: 64 << 20)
        let store = try makeNormalizedStore(clock: harness.clock, budget: budget)
        let alice = try client(harness, .alice, store: store)
        _ = try await alice.fetch(query: ExchangeRatesQuery()).value()
        #expect(store.sharedPublicResponseCount == 1)
        let records = store.recordCount(in: .session("alice"))
        #expect(records > 0)
        let before = budget.usedBytes
        try budget.updateLimit(before - 1)
        #expect(store.sharedPublicResponseCount == 0)
        #expect(store.recordCount(in: .session("alice")) == records)
        #expect(budget.usedBytes < before - 256)
        let bob = try client(harness, .bob, store: store)
        #expect(try await bob.fetch(query: ExchangeRatesQuery()).value().source == .network)
    }

    @Test("a clear of the shared scope drops the shared answers; the sessions' own records stay")
    func sharedScopeClearDropsSharedAnswers() async throws {
        let harness = try await ClientHarness("vary-clear")
        let alice = try client(harness, .alice)
        _ = try await alice.fetch(query: ExchangeRatesQuery()).value()
        #expect(harness.store.sharedPublicResponseCount == 1)
        harness.store.clear(scope: .shared, reason: .manual)
        #expect(harness.store.sharedPublicResponseCount == 0)
        #expect(try await alice.fetch(query: ExchangeRatesQuery()).value().source == .cache)
        let bob = try client(harness, .bob)
        #expect(try await bob.fetch(query: ExchangeRatesQuery()).value().source == .network)
        #expect(try await harness.count("ExchangeRates") == 2)
    }
}
