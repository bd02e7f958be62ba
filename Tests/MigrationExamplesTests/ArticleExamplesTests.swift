import FixtureSupport
import Foundation
import GraphQLCache
import RESTCache
import Synchronization
import Testing
import UnifiedCache

/// Lines the logging observer wrote.
private final class LogLines: Sendable {
    private let lines = Mutex<[String]>([])

    func append(_ line: String) { lines.withLock { $0.append(line) } }
    var all: [String] { lines.withLock { $0 } }
}

/// A hub made from the articles' configuration, with a test clock and an observer.
private struct ArticleHub {
    let tenant: FixtureTenant
    let clock = ManualCacheClock()
    let templates = RenderedTemplates()
    let logged = LogLines()
    let hub: CacheHub

    init(_ label: String) async throws {
        tenant = try await FixtureServer.tenant(label)
        let logged = logged
        hub = try CacheHub(
            configuration: bankHubConfiguration(upstream: tenant.baseURL, templates: templates),
            settings: SettingsStore(settings: .banking),
            clock: clock,
            observer: loggingObserver { line in logged.append(line) }
        )
    }

    func session(_ user: FixtureTenant.User) -> CacheSession {
        hub.session(
            id: "session-\(user.rawValue)", principal: VerifiedPrincipal(user.rawValue),
            credentials: .bearer(user.token))
    }
}

/// An account query that is not a `CacheableQuery`, so the hub's per-type and per-field freshness decides.
private func accountQuery(_ fields: String) -> UntypedGraphQLOperation {
    UntypedGraphQLOperation(
        document: "query AccountFields($id: ID!) { account(id: $id) { id \(fields) } }",
        operationName: "AccountFields",
        variables: ["id": "101"]
    )
}

@Suite("The UnifiedCache articles' examples do what the articles say")
struct ArticleExamplesTests {
    @Test("the session's own cache part goes with the session, and only that session's part")
    func sessionCachePart() async throws {
        let fixture = try await ArticleHub("articlepart")
        _ = fixture.session(.alice)
        _ = fixture.session(.bob)
        fixture.templates.store("<p>alice</p>", template: "dashboard", sessionID: "session-alice")
        fixture.templates.store("<p>bob</p>", template: "dashboard", sessionID: "session-bob")

        let report = try #require(await fixture.hub.endSession(id: "session-alice"))

        #expect(report.parts.map(\.name).contains("renderedTemplates"))
        #expect(report.succeeded)
        #expect(fixture.templates.fragment("dashboard", sessionID: "session-alice") == nil)
        #expect(fixture.templates.fragment("dashboard", sessionID: "session-bob") == "<p>bob</p>")
    }

    @Test("per-field freshness beats per-type freshness: balances age in 10 s, other account fields in 60 s")
    func graphQLFreshness() async throws {
        let fixture = try await ArticleHub("articlefresh")
        let alice = fixture.session(.alice)
        let balance = accountQuery("balance")
        let name = accountQuery("name")
        _ = try await alice.graphQL.fetch(operation: balance).get()
        _ = try await alice.graphQL.fetch(operation: name).get()

        fixture.clock.advance(seconds: 11)
        #expect(try await alice.graphQL.fetch(operation: name).get().source == .cache)
        #expect(try await alice.graphQL.fetch(operation: balance).get().source == .network)
        fixture.clock.advance(seconds: 50)
        #expect(try await alice.graphQL.fetch(operation: name).get().source == .network)
    }

    @Test("feature flags are fetched once for every session, and one session's clear leaves the shared copy")
    func sharedFeatureFlags() async throws {
        let fixture = try await ArticleHub("articleshared")
        let alice = fixture.session(.alice)
        let bob = fixture.session(.bob)
        _ = try await alice.rest.perform(with: FeatureFlagsRequest()).get()

        #expect(try await bob.rest.performWithSource(with: FeatureFlagsRequest()).get().source == .cache)
        #expect(try await fixture.tenant.counters().route("GET /api/feature-flags") == 1)

        await alice.cacheManager.clearFeatureFlagsCache()
        #expect(try await bob.rest.performWithSource(with: FeatureFlagsRequest()).get().source == .cache)
        #expect(fixture.hub.restStore.clear(domain: "featureFlags", in: .shared).entries == 1)
        #expect(try await bob.rest.performWithSource(with: FeatureFlagsRequest()).get().source == .network)
    }

    @Test("stale-while-revalidate serves the stale profile within the grace period and refreshes it once")
    func staleWhileRevalidate() async throws {
        let fixture = try await ArticleHub("articleswr")
        let alice = fixture.session(.alice)
        _ = try await alice.rest.perform(with: ProfileRequest()).get()

        fixture.clock.advance(seconds: 90)  // the upstream's max-age=60 capped the 300 s: 30 s into the grace
        let stale = try await alice.rest.performWithSource(with: ProfileRequest()).get()
        await alice.rest.waitForBackgroundRefreshes()
        let refreshed = try await alice.rest.performWithSource(with: ProfileRequest()).get()

        #expect(stale.source == .staleCache)
        #expect(stale.data.displayName == "Alice Nguyen")
        #expect(refreshed.source == .cache)
        #expect(try await fixture.tenant.counters().route("GET /api/profile") == 2)
    }

    @Test("past the grace period the profile is fetched before answering")
    func staleBeyondGrace() async throws {
        let fixture = try await ArticleHub("articleswrlate")
        let alice = fixture.session(.alice)
        _ = try await alice.rest.perform(with: ProfileRequest()).get()

        fixture.clock.advance(seconds: 121)

        #expect(try await alice.rest.performWithSource(with: ProfileRequest()).get().source == .network)
    }

    @Test("the operator's view counts the session's entries and shows neither values nor identifiers")
    func operatorViewRedacts() async throws {
        let fixture = try await ArticleHub("articleview")
        let alice = fixture.session(.alice)
        _ = try await alice.rest.perform(with: ProfileRequest()).get()

        let view = operatorView(of: alice)

        #expect(view.statistics.rest.entryCount == 1)
        #expect(view.export.contains("userProfile.me"))
        #expect(!view.export.contains("Alice Nguyen"))
        #expect(!view.export.contains("session-alice"))
    }

    @Test("the logging observer reports clears with fingerprints instead of session ids")
    func loggingObserverLogsClears() async throws {
        let fixture = try await ArticleHub("articlelog")
        let alice = fixture.session(.alice)
        _ = try await alice.rest.perform(with: ProfileRequest()).get()

        await fixture.hub.endSession(id: "session-alice")

        let lines = fixture.logged.all
        #expect(lines.contains { $0.hasPrefix("cache cleared:") && $0.contains("logout") })
        #expect(!lines.contains { $0.contains("session-alice") })
    }
}
