import FixtureSupport
import Foundation
import RESTCache
import Testing
import UnifiedCache

@Suite("Settings drive what the hub caches, and reloads apply or are refused")
struct HubSettingsTests {
    private let balance = CachedGET(path: "/api/accounts/101/balance", key: "balances.101")
    private let payees = CachedGET(path: "/api/payees", key: "payees.all")

    @Test("a domain set to never is not cached; custom sets the timeout")
    func domainPolicies() async throws {
        let settings = try SettingsStore(
            settings: parseSettings(
                #"""
                {"domainMap": "banking", "domains": {"balances": {"policy": "never"}, "payees": {"policy": 30}}}
                """#))
        let harness = try await FacadeHarness("settingspolicy", settings: settings)
        let alice = harness.session(.alice)
        _ = try await alice.rest.perform(with: balance).get()
        #expect(try await alice.rest.performWithSource(with: balance).get().source == .network)
        _ = try await alice.rest.perform(with: payees).get()
        harness.clock.advance(by: .seconds(29))
        #expect(try await alice.rest.performWithSource(with: payees).get().source == .cache)
        harness.clock.advance(by: .seconds(2))
        #expect(try await alice.rest.performWithSource(with: payees).get().source == .network)
    }

    @Test("a reload that changes a domain's policy can clear that domain in every live session")
    func reloadClearsAffectedDomains() async throws {
        let harness = try await FacadeHarness("settingsreload")
        let alice = harness.session(.alice)
        _ = try await alice.rest.perform(with: balance).get()
        _ = try await alice.rest.perform(with: payees).get()
        let json = Data(#"{"domainMap": "banking", "domains": {"balances": {"policy": 10}}}"#.utf8)
        let change = try await harness.hub.reloadSettings(
            from: .json(json, source: "test"), clearingAffectedDomains: true)
        #expect(change.affectedDomains.contains(.balances))
        #expect(try await alice.rest.performWithSource(with: balance).get().source == .network)
        #expect(try await alice.rest.performWithSource(with: payees).get().source == .cache)
    }

    @Test("a broken settings file is refused with its place, and the previous settings stay")
    func brokenReload() async throws {
        let harness = try await FacadeHarness("settingsbroken")
        let before = harness.hub.settings.current
        let json = Data(#"{"domainMap": "banking", "domains": {"balances": {"policy": "sometimes"}}}"#.utf8)
        await #expect(throws: UnifiedCacheError.self) {
            try await harness.hub.reloadSettings(from: .json(json, source: "broken.json"))
        }
        #expect(harness.hub.settings.current == before)
    }
}
