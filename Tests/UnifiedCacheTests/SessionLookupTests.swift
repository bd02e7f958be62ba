import FixtureSupport
import Foundation
import RESTCache
import Testing
import UnifiedCache

/// Hubs whose sessions end after 60 idle seconds.
private func lookupSettings(maxSessions: Int = 100) throws -> SettingsStore {
    try SettingsStore(settings: CacheSettings(sessions: .init(idleTimeoutSeconds: 60, maxSessions: maxSessions)))
}

/// A live session asked for again takes the registry's short path (one lock, no ending on the way); every rule of
/// a lookup holds on it as on the full one.
@Suite("A live session found again keeps every rule of a lookup")
struct SessionLookupTests {
    private let accounts = CachedGET(path: "/api/accounts", key: "accountSummary.list")
    private let profile = CachedGET(path: "/api/profile", key: "userProfile.me")

    @Test("a session found again and again still ends when another principal presents its id")
    func anotherPrincipalAfterRepeatedLookups() async throws {
        let harness = try await FacadeHarness("lookupprincipal", settings: try lookupSettings())
        let hub = harness.hub
        func lookup(_ user: String) -> CacheSession {
            hub.session(id: "cookie-1", principal: VerifiedPrincipal(user), credentials: .bearer("token-\(user)"))
        }
        let alice = lookup("alice")
        _ = try await alice.rest.perform(with: accounts).get()
        for _ in 0..<3 {
            #expect(lookup("alice") === alice)
        }

        let bob = lookup("bob")

        #expect(bob !== alice)
        #expect(bob.principal == VerifiedPrincipal("bob"))
        #expect(hub.restStore.entryCount(in: alice.scope) == 0)
        #expect(hub.sessionCount == 1)
        #expect(hub.sessionStatistics().ended(.principalChanged) == 1)
        #expect(harness.events.sessionEndings == [.principalChanged])
        #expect(lookup("bob") === bob)
    }

    @Test("a session found again takes changed credentials, and the same token in a new header list is no refresh")
    func credentialsOnRepeatedLookups() async throws {
        let harness = try await FacadeHarness("lookuprefresh", settings: try lookupSettings())
        let hub = harness.hub
        let alice = VerifiedPrincipal("alice")
        let session = hub.session(id: "s-1", principal: alice, credentials: .bearer("token-alice"))
        for _ in 0..<3 {
            // A new header list each time, as a request handler builds it: equal by content, not by storage.
            #expect(hub.session(id: "s-1", principal: alice, credentials: .bearer("token-alice")) === session)
        }
        #expect(hub.sessionStatistics().credentialRefreshes == 0)
        _ = try await session.rest.perform(with: accounts).get()

        #expect(hub.session(id: "s-1", principal: alice, credentials: .bearer("token-alice-refreshed")) === session)
        #expect(hub.session(id: "s-1", principal: alice, credentials: .bearer("token-alice-refreshed")) === session)

        #expect(hub.sessionStatistics().credentialRefreshes == 1)
        #expect(session.credentials.headers["Authorization"] == "Bearer token-alice-refreshed")
        #expect(try await session.rest.performWithSource(with: accounts).get().source == .cache)
        _ = try await session.rest.perform(with: profile).get()
        let counters = try await harness.counters()
        #expect(counters.tokens("GET /api/accounts") == ["token-alice": 1])
        #expect(counters.tokens("GET /api/profile") == ["token-alice-refreshed": 1])
    }

    @Test("a session found again is touched: idle expiry counts from its last lookup, on the moved test clock")
    func idleExpiryCountsFromTheLastLookup() async throws {
        let harness = try await FacadeHarness("lookupidle", settings: try lookupSettings())
        let hub = harness.hub
        let alice = harness.session(.alice)
        harness.clock.advance(seconds: 59)
        #expect(harness.session(.alice) === alice)
        harness.clock.advance(seconds: 59)
        #expect(harness.session(.alice) === alice)
        #expect(await hub.expireIdleSessions() == 0)

        harness.clock.advance(seconds: 60)
        let again = harness.session(.alice)

        #expect(again !== alice)
        #expect(hub.sessionStatistics().ended(.sessionExpired) == 1)
        #expect(hub.sessionStatistics().created == 2)
        #expect(hub.sessionCount == 1)
    }

    @Test("a lookup of a live session ends expired ones on the way, at most eight per lookup")
    func lookupEndsExpiredSessionsOnTheWay() async throws {
        let harness = try await FacadeHarness("lookupexpired", settings: try lookupSettings())
        let hub = harness.hub
        let idle = (0..<10).map {
            hub.session(id: "idle-\($0)", principal: VerifiedPrincipal("u-\($0)"), credentials: .none)
        }
        harness.clock.advance(seconds: 30)
        let alice = harness.session(.alice)
        harness.clock.advance(seconds: 30)

        #expect(harness.session(.alice) === alice)
        #expect(hub.sessionCount == 3)
        #expect(hub.sessionStatistics().ended(.sessionExpired) == 8)
        #expect(harness.session(.alice) === alice)
        #expect(hub.sessionCount == 1)
        #expect(hub.sessionStatistics().ended(.sessionExpired) == 10)
        #expect(idle.allSatisfy { hub.existingSession(id: $0.id) == nil })
    }

    @Test("a session found again is the most recent: the live-session bound ends another, and it is charged once")
    func lookupProtectsFromTheBoundAndChargesNothing() async throws {
        let harness = try await FacadeHarness("lookupbound", settings: try lookupSettings(maxSessions: 2))
        let hub = harness.hub
        let alice = harness.session(.alice)
        let bob = harness.session(.bob)
        let charged = hub.budget.usedBytes
        for _ in 0..<5 {
            #expect(harness.session(.alice) === alice)
        }
        #expect(hub.budget.usedBytes == charged)

        let carol = harness.session(.carol)

        #expect(hub.existingSession(id: bob.id) == nil)
        #expect(hub.existingSession(id: alice.id) === alice)
        #expect(hub.existingSession(id: carol.id) === carol)
        #expect(hub.sessionStatistics().ended(.sessionEvicted) == 1)
    }
}
