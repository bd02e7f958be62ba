import CacheCore
import FixtureSupport
import Foundation
import Testing

@testable import UnifiedCache

@Suite("A cache domain can name value tags, so the granular clears reach the value door")
struct ValueDomainTests {
    private static let settingsJSON = #"""
        {"domains": {"balances": {"valueTags": ["balancesDashboard"]}}, "domainMap": "banking"}
        """#

    @Test("clearBalancesCache removes the session's values tagged by the balances domain, and only those")
    func granularClearReachesValues() async throws {
        let settings = try SettingsStore(settings: try parseSettings(Self.settingsJSON))
        let harness = try await FacadeHarness("values-domain", settings: settings)
        let session = harness.session(.alice)
        let bob = harness.session(.bob)
        for values in [session.values, bob.values] {
            _ = try await values.value(forKey: "balances", tags: ["balancesDashboard"]) { 1 }
            _ = try await values.value(forKey: "profile", tags: ["profile"]) { 2 }
        }
        let entered = Latch()
        let release = Latch()
        let running = Task {
            try await session.values.value(forKey: "running", tags: ["balancesDashboard"]) {
                entered.open()
                await release.wait()
                return 3
            }
        }
        await entered.wait()

        let report = await session.cacheManager.clearBalancesCache()
        release.open()
        #expect(try await running.value == 3)

        let hub = harness.hub
        #expect(report.parts.contains { $0.name == "values" && $0.entries == 1 })
        #expect(!hub.holdsValue("balances", in: session.scope))
        #expect(!hub.holdsValue("running", in: session.scope))  // no write after the clear
        #expect(hub.holdsValue("profile", in: session.scope))
        #expect(hub.holdsValue("balances", in: bob.scope))
    }

    @Test("a domain of value tags alone is valid; an empty value tag is refused where it is written")
    func valueTagsAreChecked() throws {
        let domain = try CacheDomain(name: "dashboards", restDomains: [], valueTags: ["dashboard"])
        #expect(!domain.isEmpty)
        #expect(domain.secondLevelLabels == [.valueTag("dashboard")])
        let settings = try parseSettings(#"{"domains": {"dashboards": {"restDomains": [], "valueTags": ["d"]}}}"#)
        #expect(settings.domainMap["dashboards"]?.valueTags == ["d"])

        let refused = unifiedError { try CacheDomain(name: "dashboards", valueTags: [""]) }
        #expect(refused?.code == .invalidDomain)
        #expect(refused?.place == "dashboards.valueTags")
        let inFile = unifiedError { try parseSettings(#"{"domains": {"dashboards": {"valueTags": [""]}}}"#) }
        #expect(inFile?.code == .invalidDomain)
        #expect(inFile?.place?.hasPrefix("domains.dashboards.valueTags") == true)
    }

    @Test("a domain without value tags encodes as before; one with them round-trips")
    func encoding() throws {
        let plain = try CacheDomain(name: "balances")
        let plainJSON = String(decoding: try JSONEncoder().encode(plain), as: UTF8.self)
        #expect(!plainJSON.contains("valueTags"))
        let tagged = try CacheDomain(name: "balances", valueTags: ["balancesDashboard"])
        let decoded = try JSONDecoder().decode(CacheDomain.self, from: try JSONEncoder().encode(tagged))
        #expect(decoded == tagged)
    }
}
