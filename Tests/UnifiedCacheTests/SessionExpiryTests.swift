import FixtureSupport
import Foundation
import GraphQLCache
import RESTCache
import Testing
import UnifiedCache

/// Hubs whose sessions end after 60 idle seconds and whose bound is `maxSessions`.
private func sessionSettings(idle: Double = 60, maxSessions: Int = 100) throws -> SettingsStore {
    try SettingsStore(settings: CacheSettings(sessions: .init(idleTimeoutSeconds: idle, maxSessions: maxSessions)))
}

@Suite("Sessions end by themselves: idle expiry on the injected clock")
struct SessionExpiryTests {
    private let accounts = CachedGET(path: "/api/accounts", key: "accountSummary.list")
    private let summary = UntypedGraphQLOperation(
        document: "query AccountSummary { accounts { id name } }", operationName: "AccountSummary")

    @Test("a session idle for the timeout ends with everything cleared, as at logout")
    func idleSessionEnds() async throws {
        let harness = try await FacadeHarness("expiryidle", settings: try sessionSettings())
        let hub = harness.hub
        let alice = harness.session(.alice)
        let bob = harness.session(.bob)
        _ = try await alice.rest.perform(with: accounts).get()
        #expect(await alice.graphQL.fetch(operation: summary).isSuccess)
        _ = try await hub.client.execute(
            .init(url: harness.tenant.url("/api/cookies/set?name=sid&value=a"), cookieJar: alice.cookieJar))

        harness.clock.advance(seconds: 59)
        _ = harness.session(.bob)
        harness.clock.advance(seconds: 1)
        #expect(await hub.expireIdleSessions() == 1)

        #expect(hub.existingSession(id: "session-alice") == nil)
        #expect(hub.existingSession(id: "session-bob") === bob)
        #expect(hub.restStore.entryCount(in: alice.scope) == 0)
        #expect(hub.graphQLStore.recordCount(in: alice.scope) == 0)
        #expect(alice.cookieJar.cookies().isEmpty)
        #expect(hub.sessionStatistics().ended(.sessionExpired) == 1)
        #expect(harness.events.sessionEndings == [.sessionExpired])
        #expect(await hub.expireIdleSessions() == 0)
    }

    @Test("asking for an expired session ends it and gives a fresh, empty one")
    func expiredSessionIsReplacedOnUse() async throws {
        let harness = try await FacadeHarness("expiryonuse", settings: try sessionSettings())
        let alice = harness.session(.alice)
        _ = try await alice.rest.perform(with: accounts).get()
        harness.clock.advance(seconds: 60)

        let again = harness.session(.alice)

        #expect(again !== alice)
        #expect(try await again.rest.performWithSource(with: accounts).get().source == .network)
        #expect(harness.hub.sessionStatistics().ended(.sessionExpired) == 1)
        #expect(harness.hub.sessionCount == 1)
    }

    @Test("use within the timeout keeps a session alive however long it lives")
    func useKeepsSessionAlive() async throws {
        let harness = try await FacadeHarness("expirykeep", settings: try sessionSettings())
        let alice = harness.session(.alice)
        for _ in 0..<10 {
            harness.clock.advance(seconds: 59)
            #expect(harness.session(.alice) === alice)
            #expect(await harness.hub.expireIdleSessions() == 0)
        }
    }

    @Test("an answer in flight when its session expires is delivered but not stored")
    func expiryDuringFlight() async throws {
        let harness = try await FacadeHarness("expiryflight", settings: try sessionSettings())
        let alice = harness.session(.alice)
        let reads = try await HeldReads(of: alice, in: harness)
        harness.clock.advance(seconds: 61)
        #expect(await harness.hub.expireIdleSessions() == 1)

        try await harness.tenant.releaseHeldAnswers()
        #expect(try await reads.rest.value.get().source == .network)
        #expect(try await reads.graphQL.value.get().source == .network)
        #expect(harness.hub.restStore.entryCount(in: alice.scope) == 0)
        #expect(harness.hub.graphQLStore.recordCount(in: alice.scope) == 0)
    }

    @Test("expiry ends only the sessions past their timeout, however many others are live")
    func expiryEndsOnlyWhatExpired() async throws {
        let harness = try await FacadeHarness("expirysome", settings: try sessionSettings(maxSessions: 10_000))
        let hub = harness.hub
        for index in 0..<1_000 {
            _ = hub.session(id: "s-\(index)", principal: VerifiedPrincipal("u-\(index)"), credentials: .none)
        }
        harness.clock.advance(seconds: 30)
        for index in 10..<1_000 {
            _ = hub.session(id: "s-\(index)", principal: VerifiedPrincipal("u-\(index)"), credentials: .none)
        }
        harness.clock.advance(seconds: 30)
        #expect(await hub.expireIdleSessions() == 10)
        #expect(hub.sessionCount == 990)
        #expect(hub.existingSession(id: "s-9") == nil)
        #expect(hub.existingSession(id: "s-10") != nil)
    }
}

@Suite("A bound on live sessions: past it the least recently used session ends")
struct SessionBoundTests {
    @Test("the least recently used session is evicted, recording the reason; use protects a session")
    func leastRecentlyUsedIsEvicted() async throws {
        let harness = try await FacadeHarness("boundlru", settings: try sessionSettings(maxSessions: 3))
        let hub = harness.hub
        let sessions = (1...3).map {
            hub.session(id: "s-\($0)", principal: VerifiedPrincipal("u-\($0)"), credentials: .none)
        }
        _ = hub.session(id: "s-1", principal: VerifiedPrincipal("u-1"), credentials: .none)
        _ = hub.session(id: "s-4", principal: VerifiedPrincipal("u-4"), credentials: .none)

        #expect(hub.sessionCount == 3)
        #expect(hub.existingSession(id: "s-2") == nil)
        #expect(hub.existingSession(id: "s-1") === sessions[0])
        #expect(hub.existingSession(id: "s-3") === sessions[2])
        #expect(hub.sessionStatistics().ended(.sessionEvicted) == 1)
        #expect(harness.events.sessionEndings == [.sessionEvicted])
    }

    @Test("an evicted session's data is gone and the same user starts again with an empty cache")
    func evictedSessionIsCleared() async throws {
        let harness = try await FacadeHarness("boundclear", settings: try sessionSettings(maxSessions: 1))
        let accounts = CachedGET(path: "/api/accounts", key: "accountSummary.list")
        let alice = harness.session(.alice)
        _ = try await alice.rest.perform(with: accounts).get()
        _ = harness.session(.bob)
        #expect(harness.hub.restStore.entryCount(in: alice.scope) == 0)
        let again = harness.session(.alice)
        #expect(try await again.rest.performWithSource(with: accounts).get().source == .network)
    }
}
