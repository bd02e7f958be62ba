import FixtureSupport
import Foundation
import Testing
import UnifiedCache

@Suite("The article on caching any value does what it says")
struct ValueArticleExamplesTests {
    @Test("the dashboard is composed once per user until its tag is cleared")
    func dashboardPerUser() async throws {
        let tenant = try await FixtureServer.tenant("article-values")
        let hub = try CacheHub(
            configuration: .init(restBaseURL: tenant.baseURL, graphQLEndpoint: tenant.graphqlURL),
            settings: SettingsStore(settings: .banking), clock: ManualCacheClock())
        defer { Task { await hub.shutdown() } }
        let alice = VerifiedPrincipal("alice")
        let token = FixtureTenant.User.alice.token

        let first = try await dashboard(hub: hub, sessionID: "s-alice", user: alice, token: token)
        let second = try await dashboard(hub: hub, sessionID: "s-alice", user: alice, token: token)
        #expect(first.accountIDs == second.accountIDs)
        #expect(try await tenant.counters().route("GET /api/profile") == 1)
        #expect(hub.values.statistics().factoryRuns == 1)

        await paymentMade(in: hub.session(id: "s-alice", principal: alice, credentials: .bearer(token)))
        _ = try await dashboard(hub: hub, sessionID: "s-alice", user: alice, token: token)
        #expect(hub.values.statistics().factoryRuns == 2)
    }
}
