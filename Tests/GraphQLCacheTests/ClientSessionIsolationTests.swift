import CacheCore
import CurlHTTP
import FixtureSupport
import GraphQLCache
import Testing

@Suite("GraphQL client: sessions never see each other's data")
struct ClientSessionIsolationTests {
    @Test("two sessions on one store keep their own records, reads and clears")
    func twoSessions() async throws {
        let harness = try await ClientHarness("gqlisolation")
        let alice = try harness.client(.alice)
        let bob = try harness.client(.bob)
        let aliceAccounts = try await alice.fetch(query: AccountSummaryQuery()).value().data.accounts.map(\.id)
        #expect(aliceAccounts == ["101", "102"])
        // Bob's first read misses although Alice's answer is cached: his own call, his own data.
        let bobAnswer = try await bob.fetch(query: AccountSummaryQuery()).value()
        #expect(bobAnswer.source == .network)
        #expect(bobAnswer.data.accounts.map(\.id) == ["201", "202"])
        #expect(harness.store.record("Account:101", in: bob.scope) == nil)
        #expect(harness.store.record("Account:201", in: alice.scope) == nil)
        #expect(
            await bob.fetch(query: ProfileQuery(), cachePolicy: .returnCacheDataDontFetch).failure?.code == .cacheMiss)

        await bob.cacheManager().clearCache(reason: .logout)
        #expect(try await alice.fetch(query: AccountSummaryQuery()).value().source == .cache)
        #expect(try await harness.count("AccountSummary") == 2)
    }

    @Test("each session's requests carry its own cookie jar")
    func cookieJarPerSession() async throws {
        let harness = try await ClientHarness("gqlcookies")
        let jar = CookieJar()
        let otherJar = CookieJar()
        // The echo route sets a cookie on whoever calls it; its answer is not GraphQL, which does not matter.
        let url = harness.tenant.url("/api/echo?set_header=Set-Cookie:gql%3Dsession-a%3B%20Path%3D%2F")
        let client = try GraphQLClient(
            url: url,
            transport: harness.transport,
            store: harness.store,
            scope: .session("a"),
            credentials: .bearer("token-a", cookieJar: jar)
        )
        let other = try GraphQLClient(
            url: harness.tenant.graphqlURL,
            transport: harness.transport,
            store: harness.store,
            scope: .session("b"),
            credentials: .bearer(FixtureTenant.User.bob.token, cookieJar: otherJar)
        )
        let echo = await client.fetch(operation: UntypedGraphQLOperation(document: "{ me { id } }"))
        #expect(echo.failure?.code == .invalidResponse)
        #expect(jar.cookies().map(\.name) == ["gql"])
        _ = try await other.fetch(query: ProfileQuery()).value()
        #expect(otherJar.cookies().isEmpty)
        #expect(!client.credentials.description.contains("token-a"))
    }
}
