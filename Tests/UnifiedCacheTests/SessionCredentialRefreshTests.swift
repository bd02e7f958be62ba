import FixtureSupport
import Foundation
import GraphQLCache
import RESTCache
import Testing
import UnifiedCache

@Suite("A token refresh keeps the session's cache and reaches the upstream")
struct SessionCredentialRefreshTests {
    private let accounts = CachedGET(path: "/api/accounts", key: "accountSummary.list")
    private let profile = CachedGET(path: "/api/profile", key: "userProfile.me")
    private let summary = UntypedGraphQLOperation(
        document: "query AccountSummary { accounts { id name } }", operationName: "AccountSummary")
    private let cards = UntypedGraphQLOperation(document: "query CardList { cards { id } }", operationName: "CardList")

    @Test("after a refresh, REST and GraphQL requests carry the new token while cached entries and cookies stay")
    func refreshedTokenReachesTheUpstream() async throws {
        let harness = try await FacadeHarness("refresh")
        let hub = harness.hub
        let alice = VerifiedPrincipal("alice")
        let session = hub.session(id: "s-1", principal: alice, credentials: .bearer("token-alice"))
        _ = try await session.rest.perform(with: accounts).get()
        #expect(await session.graphQL.fetch(operation: summary).isSuccess)
        _ = try await hub.client.execute(
            .init(url: harness.tenant.url("/api/cookies/set?name=sid&value=a"), cookieJar: session.cookieJar))

        let refreshed = hub.session(id: "s-1", principal: alice, credentials: .bearer("token-alice-refreshed"))

        #expect(refreshed === session)
        #expect(try await session.rest.performWithSource(with: accounts).get().source == .cache)
        #expect(try await session.graphQL.fetch(operation: summary).get().source == .cache)
        _ = try await session.rest.perform(with: profile).get()
        #expect(await session.graphQL.fetch(operation: cards).isSuccess)
        let counters = try await harness.counters()
        #expect(counters.tokens("GET /api/accounts") == ["token-alice": 1])
        #expect(counters.tokens("GET /api/profile") == ["token-alice-refreshed": 1])
        #expect(counters.tokens("op:CardList") == ["token-alice-refreshed": 1])
        #expect(session.cookieJar.cookies().count == 1)
        #expect(session.credentials.headers["Authorization"] == "Bearer token-alice-refreshed")
        #expect(hub.sessionStatistics().credentialRefreshes == 1)
        #expect(hub.sessionStatistics().ended.isEmpty)
    }

    @Test("a request in flight during a refresh finishes with the token it started with")
    func inFlightRequestKeepsItsToken() async throws {
        let harness = try await FacadeHarness("refreshflight")
        try await harness.tenant.holdAnswers(route: "GET /api/accounts")
        let alice = VerifiedPrincipal("alice")
        let session = harness.hub.session(id: "s-1", principal: alice, credentials: .bearer("token-alice"))
        let inFlight = Task { await session.rest.performWithSource(with: accounts) }
        try await waitUntil { try await harness.counters().route("GET /api/accounts") == 1 }
        _ = harness.hub.session(id: "s-1", principal: alice, credentials: .bearer("token-alice-refreshed"))
        try await harness.tenant.releaseHeldAnswers()
        #expect(try await inFlight.value.get().source == .network)
        #expect(try await harness.counters().tokens("GET /api/accounts") == ["token-alice": 1])
        #expect(try await session.rest.performWithSource(with: accounts).get().source == .cache)
    }

    @Test("the same credentials again count no refresh")
    func unchangedCredentialsAreNoRefresh() async throws {
        let harness = try await FacadeHarness("refreshsame")
        let alice = VerifiedPrincipal("alice")
        for _ in 0..<3 {
            _ = harness.hub.session(id: "s-1", principal: alice, credentials: .bearer("token-alice"))
        }
        #expect(harness.hub.sessionStatistics().credentialRefreshes == 0)
        #expect(harness.hub.sessionStatistics().created == 1)
    }
}
