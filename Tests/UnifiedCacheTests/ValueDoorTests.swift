import CacheCore
import FixtureSupport
import Foundation
import Testing

@testable import UnifiedCache

@Suite("The value door caches any Codable value per session, like a REST answer")
struct ValueDoorTests {
    @Test("a factory that calls the fixture over HTTP runs once; later reads are hits of the typed value")
    func factoryOverHTTP() async throws {
        let harness = try await FacadeHarness("values-http")
        let session = harness.session(.alice)
        let hub = harness.hub
        let tenant = harness.tenant
        let compose: @Sendable () async throws -> Dashboard = {
            Dashboard(owner: "alice", accountsBytes: try await fetchAccounts(hub, tenant, as: .alice), version: 1)
        }

        let first = try await session.values.value(
            forKey: "dashboard", tags: ["accounts"], options: .init(duration: .seconds(30)), factory: compose)
        let second = try await session.values.value(forKey: "dashboard", factory: compose)

        #expect(first == second)
        #expect(first.accountsBytes > 0)
        #expect(try await harness.counters().route("GET /api/accounts") == 1)
        let statistics = hub.values.statistics()
        #expect(statistics.factoryRuns == 1)
        #expect(statistics.memory.hits == 1)
    }

    @Test("a value expires after its duration on the injected clock, then the factory runs again")
    func expiryOnTheClock() async throws {
        let harness = try await FacadeHarness("values-expiry")
        let values = harness.session(.alice).values
        let runs = CallCounter()
        let make: @Sendable () async throws -> Int = { runs.increment() }
        let options = ValueCacheOptions(duration: .seconds(30))

        #expect(try await values.value(forKey: "count", options: options, factory: make) == 1)
        harness.clock.advance(by: .seconds(29))
        #expect(try await values.value(forKey: "count", options: options, factory: make) == 1)
        harness.clock.advance(by: .seconds(1))
        #expect(try await values.value(forKey: "count", options: options, factory: make) == 2)
    }

    @Test("a session's values are charged to the memory budget and released when the session ends")
    func chargedAndEndedWithTheSession() async throws {
        let harness = try await FacadeHarness("values-budget")
        let session = harness.session(.alice)
        _ = try await session.values.value(forKey: "warm") { 0 }  // the session's own charges first
        let before = harness.hub.budget.usedBytes
        let big = String(repeating: "x", count: 50_000)

        _ = try await session.values.value(forKey: "big", tags: ["report"]) { big }
        #expect(harness.hub.budget.usedBytes >= before + 50_000)
        #expect(harness.hub.holdsValue("big", in: session.scope))

        let report = await harness.hub.endSession(id: session.id)
        #expect(report?.parts.contains { $0.name == "values" && $0.entries == 2 } == true)
        #expect(!harness.hub.holdsValue("big", in: session.scope))
        #expect(harness.hub.budget.usedBytes < before)
    }

    @Test("a session holds at most its entry limit of values, least recently used out first")
    func boundedPerSession() async throws {
        var settings = CacheSettings()
        settings.memory.maxEntriesPerSession = 3
        let harness = try await FacadeHarness(
            "values-bounded", settings: try SettingsStore(settings: settings), bankingPresets: false)
        let values = harness.session(.alice).values
        for index in 0..<5 {
            _ = try await values.value(forKey: "k\(index)") { index }
        }
        #expect(harness.hub.valueStore.entryCount(in: values.scope) == 3)
        #expect(!harness.hub.holdsValue("k0", in: values.scope))
        #expect(harness.hub.holdsValue("k4", in: values.scope))
    }

    @Test("clear by key and clear by tag remove only what they name, in one session")
    func clearByKeyAndTag() async throws {
        let harness = try await FacadeHarness("values-clears")
        let alice = harness.session(.alice).values
        let bob = harness.session(.bob).values
        for values in [alice, bob] {
            _ = try await values.value(forKey: "a", tags: ["accounts"]) { 1 }
            _ = try await values.value(forKey: "b", tags: ["accounts", "cards"]) { 2 }
            _ = try await values.value(forKey: "c", tags: ["cards"]) { 3 }
        }

        #expect(await alice.clear(forKey: "c") == 1)
        #expect(await alice.clear(tag: "accounts") == 2)

        let hub = harness.hub
        #expect(!hub.holdsValue("a", in: alice.scope) && !hub.holdsValue("b", in: alice.scope))
        #expect(!hub.holdsValue("c", in: alice.scope))
        #expect(hub.holdsValue("a", in: bob.scope) && hub.holdsValue("b", in: bob.scope))
        #expect(hub.holdsValue("c", in: bob.scope))
    }

    @Test("the shared scope is reached only through the hub's door, never by a session's")
    func sharedOnlyWhenAsked() async throws {
        let harness = try await FacadeHarness("values-shared")
        let shared = try await harness.hub.values.value(forKey: "rates") { "shared rates" }
        let own = try await harness.session(.alice).values.value(forKey: "rates") { "alice's rates" }

        #expect(shared == "shared rates")
        #expect(own == "alice's rates")
        #expect(try await harness.hub.values.value(forKey: "rates") { "again" } == "shared rates")
    }

    @Test("an empty key, an empty tag, a negative duration and an unencodable value are typed errors")
    func typedErrors() async throws {
        let harness = try await FacadeHarness("values-errors")
        let values = harness.session(.alice).values
        let cases: [(String, Set<String>, ValueCacheOptions, UnifiedCacheError.Code)] = [
            ("", [], .init(), .invalidValueRequest),
            ("k", [""], .init(), .invalidValueRequest),
            ("k", [], .init(duration: .seconds(-1)), .invalidValueRequest),
        ]
        for (key, tags, options, code) in cases {
            await #expect(throws: UnifiedCacheError.self) {
                _ = try await values.value(forKey: key, tags: tags, options: options) { 1 }
            }
            do {
                _ = try await values.value(forKey: key, tags: tags, options: options) { 1 }
            } catch let error as UnifiedCacheError {
                #expect(error.code == code)
            }
        }
        do {
            _ = try await values.value(forKey: "bad") { Unencodable() }
            Issue.record("an unencodable value was cached")
        } catch let error as UnifiedCacheError {
            #expect(error.code == .valueNotEncodable)
            #expect(!error.description.contains("Refused"))
        }
        #expect(!harness.hub.holdsValue("bad", in: values.scope))
    }

    @Test("an ended session's door refuses work with a typed error and runs no factory")
    func endedSessionRefuses() async throws {
        let harness = try await FacadeHarness("values-ended")
        let values = harness.session(.alice).values
        await harness.hub.endSession(id: "session-alice")
        let runs = CallCounter()
        do {
            _ = try await values.value(forKey: "k") { runs.increment() }
            Issue.record("an ended session's door answered")
        } catch let error as UnifiedCacheError {
            #expect(error.code == .sessionEnded)
        }
        #expect(runs.count == 0)
    }
}
