import FixtureSupport
import Foundation
import GraphQLCache
import RESTCache
import Testing
import UnifiedCache

@Suite("The memory budget bounds the whole process, sessions included")
struct SessionMemoryTests {
    private let accounts = CachedGET(path: "/api/accounts", key: "accountSummary.list")
    private let summary = UntypedGraphQLOperation(
        document: "query AccountSummary { accounts { id name } }", operationName: "AccountSummary")

    @Test("what a session costs by itself is charged to the budget and released when it ends")
    func sessionsAreCharged() async throws {
        let harness = try await FacadeHarness("memorycharge")
        let budget = harness.hub.budget
        #expect(budget.usedBytes == 0)
        let alice = harness.session(.alice)
        let empty = budget.usedBytes
        #expect(empty > 0 && empty <= 1_024)
        _ = try await alice.rest.perform(with: accounts).get()
        // The REST part and the stored answer (its overhead alone is 352 B).
        #expect(budget.usedBytes > empty + SessionCharge.measured.rest + 352)
        await harness.hub.endSession(id: "session-alice")
        #expect(budget.usedBytes == 0)
    }

    @Test("a session that is never used costs only its shell")
    func idleSessionsAreCheap() async throws {
        let harness = try await FacadeHarness("memoryidle")
        for index in 0..<100 {
            _ = harness.hub.session(id: "s-\(index)", principal: VerifiedPrincipal("u-\(index)"), credentials: .none)
        }
        #expect(harness.hub.budget.usedBytes <= 100 * 1_024)
    }

    @Test("over the budget the least recently used sessions end first, whichever store holds their data")
    func leastRecentSessionsEndFirst() async throws {
        let settings = try SettingsStore(
            settings: CacheSettings(memory: .init(processBudgetBytes: 16 * 1_024, maxBytesPerSession: 8 * 1_024)))
        let harness = try await FacadeHarness("memorylru", settings: settings)
        let hub = harness.hub
        var sessions: [CacheSession] = []
        for index in 0..<12 {
            let session = hub.session(
                id: "s-\(index)", principal: VerifiedPrincipal("alice"), credentials: .bearer("token-alice"))
            if index.isMultiple(of: 2) {
                _ = try await session.rest.perform(with: accounts).get()
            } else {
                #expect(await session.graphQL.fetch(operation: summary).isSuccess)
            }
            sessions.append(session)
            #expect(hub.budget.usedBytes <= hub.budget.limit)
        }
        let live = sessions.indices.filter { hub.existingSession(id: "s-\($0)") === sessions[$0] }
        #expect(live.count < 12)
        #expect(live.contains(11))
        // Whatever survives is the most recent run of sessions: nothing older outlived anything newer.
        #expect(live == Array((12 - live.count)..<12))
        #expect(hub.sessionStatistics().ended(.memoryPressure) == 12 - live.count)
        let newest = sessions[11]
        #expect(await newest.graphQL.fetch(operation: summary, cachePolicy: .returnCacheDataDontFetch).isSuccess)
    }
}

@Suite("Session settings, maintenance and metrics")
struct SessionOperationsTests {
    @Test("reloading session settings applies the new bound and idle timeout to the running hub")
    func reloadAppliesSessionLimits() async throws {
        let harness = try await FacadeHarness("reloadsessions")
        let hub = harness.hub
        for index in 0..<5 {
            _ = hub.session(id: "s-\(index)", principal: VerifiedPrincipal("u-\(index)"), credentials: .none)
            harness.clock.advance(seconds: 10)
        }
        let change = try await hub.reloadSettings(
            from: .settings(CacheSettings(sessions: .init(idleTimeoutSeconds: 25, maxSessions: 2))))
        #expect(change.sessionLimitsChanged)
        // Idle for 50, 40, 30 s: past the new 25 s. Then the bound keeps the two most recent.
        #expect(hub.sessionCount == 2)
        #expect(hub.existingSession(id: "s-3") != nil && hub.existingSession(id: "s-4") != nil)
        #expect(hub.sessionStatistics().ended(.sessionExpired) == 3)
        harness.clock.advance(seconds: 14)
        #expect(await hub.expireIdleSessions() == 1)
        #expect(hub.existingSession(id: "s-4") != nil)
    }

    @Test("maintenance purges expired REST entries past the grace period and counts them as expirations")
    func maintenancePurgesExpiredEntries() async throws {
        let harness = try await FacadeHarness("maintenancepurge")
        let alice = harness.session(.alice)
        _ = try await alice.rest.perform(with: CachedGET(path: "/api/accounts", key: "accountSummary.list")).get()
        harness.clock.advance(seconds: 600 + 59)
        #expect(await harness.hub.runMaintenance().expiredEntries == 0)
        harness.clock.advance(seconds: 2)
        let report = await harness.hub.runMaintenance()
        #expect(report.expiredEntries == 1)
        #expect(harness.hub.statistics().rest.expirations == 1)
    }

    @Test("reloading memory limits applies them to the running hub, ending least recent sessions to fit")
    func reloadAppliesMemoryLimits() async throws {
        let harness = try await FacadeHarness("reloadmemory")
        let hub = harness.hub
        for user in [FixtureTenant.User.alice, .bob] {
            _ = try await harness.session(user).rest.perform(
                with: CachedGET(path: "/api/accounts", key: "accountSummary.list")
            ).get()
        }
        let used = hub.budget.usedBytes
        let change = try await hub.reloadSettings(
            from: .settings(
                CacheSettings(
                    memory: .init(
                        processBudgetBytes: used - 1, maxEntriesPerSession: 50, maxBytesPerSession: 100_000))))
        #expect(change.memoryLimitsChanged)
        #expect(hub.budget.limit == used - 1)
        #expect(hub.budget.usedBytes <= hub.budget.limit)
        #expect(hub.existingSession(id: "session-alice") == nil)
        #expect(hub.existingSession(id: "session-bob") != nil)
        #expect(hub.restStore.currentLimits.maxEntriesPerScope == 50)

        let refused = await #expect(throws: UnifiedCacheError.self) {
            try await hub.reloadSettings(from: .settings(CacheSettings(memory: .init(processBudgetBytes: 0))))
        }
        #expect(refused?.code == .invalidSettings)
        #expect(hub.budget.limit == used - 1)
    }

    @Test("maintenance purges GraphQL records no freshness rule can make fresh any more")
    func maintenancePurgesExpiredRecords() async throws {
        let harness = try await FacadeHarness("maintenancerecords")
        let summary = UntypedGraphQLOperation(
            document: "query AccountSummary { accounts { id name } }", operationName: "AccountSummary")
        let alice = harness.session(.alice)
        #expect(await alice.graphQL.fetch(operation: summary).isSuccess)
        let records = harness.hub.graphQLStore.recordCount(in: alice.scope)
        #expect(records > 0)
        harness.clock.advance(seconds: 300 + 59)
        #expect(await harness.hub.runMaintenance().expiredRecords == 0)
        harness.clock.advance(seconds: 2)
        #expect(await harness.hub.runMaintenance().expiredRecords == records)
        #expect(harness.hub.graphQLStore.recordCount(in: alice.scope) == 0)
        let again = await alice.graphQL.fetch(operation: summary, cachePolicy: .returnCacheDataDontFetch)
        #expect(!again.isSuccess)
    }

    @Test("metrics show live sessions, sessions started and sessions ended by reason, with no identities")
    func metricsText() async throws {
        let harness = try await FacadeHarness(
            "sessionmetrics",
            settings: try SettingsStore(
                settings: CacheSettings(sessions: .init(idleTimeoutSeconds: 60))))
        let hub = harness.hub
        _ = harness.session(.alice)
        harness.clock.advance(seconds: 61)
        _ = harness.session(.bob)
        _ = hub.session(id: "session-bob", principal: VerifiedPrincipal("mallory"), credentials: .none)
        await hub.endSession(id: "session-bob")
        await hub.expireIdleSessions()

        let text = hub.metricsText()
        #expect(text.contains("ucache_sessions 0\n"))
        #expect(text.contains("ucache_sessions_created_total 3\n"))
        #expect(text.contains("ucache_sessions_ended_total{reason=\"session_expired\"} 1\n"))
        #expect(text.contains("ucache_sessions_ended_total{reason=\"principal_changed\"} 1\n"))
        #expect(text.contains("ucache_sessions_ended_total{reason=\"logout\"} 1\n"))
        #expect(text.contains("ucache_sessions_ended_total{reason=\"session_evicted\"} 0\n"))
        for identity in ["alice", "bob", "mallory", "session-"] {
            #expect(!text.contains(identity))
        }
        let json = try #require(try JSONSerialization.jsonObject(with: hub.metricsJSON()) as? [String: Any])
        let process = try #require(json["process"] as? [String: Any])
        #expect((process["sessionsEnded"] as? [String: Int])?["logout"] == 1)
    }
}
