import CacheCore
import FixtureSupport
import Foundation
import RESTCache
import Testing

@testable import UnifiedCache

/// The settings file's per-domain eager-refresh thresholds on REST hits: each domain's own threshold decides, the
/// lowest of them only lets a hit skip the work early.
@Suite("Hub eager refresh: a domain's threshold decides its hits, and a reload moves it")
struct HubEagerRefreshTests {
    private let route = "GET /api/accounts"
    private let accounts = CachedGET(path: "/api/accounts", key: "accountSummary.list", domains: ["accountSummary"])

    private func settings(accounts: Double, balances: Double) throws -> SettingsStore {
        try SettingsStore(settings: CacheSettings(json: Array(json(accounts: accounts, balances: balances).utf8)))
    }

    private func json(accounts: Double, balances: Double) -> String {
        #"""
        { "domainMap": "banking", "domains": { "accountSummary": { "eagerRefreshThreshold": \#(accounts) },
          "balances": { "eagerRefreshThreshold": \#(balances) } } }
        """#
    }

    @Test("Another domain's lower threshold does not refresh this domain's hits early; its own threshold does")
    func ownThresholdDecides() async throws {
        let settings = try settings(accounts: 0.9, balances: 0.5)
        #expect(settings.lowestEagerRefreshThreshold == 0.5)
        let harness = try await FacadeHarness("her-own", settings: settings)
        let rest = harness.session(.alice).rest
        _ = try await rest.performWithSource(with: accounts).get()

        harness.clock.advance(by: .seconds(360))  // 60 % of the domain's 600 s: past 0.5, before 0.9
        #expect(try await rest.performWithSource(with: accounts).get().staleReason == nil)
        await rest.waitForBackgroundRefreshes()
        #expect(try await harness.tenant.counters().route(route) == 1)

        harness.clock.advance(by: .seconds(200))  // 93 %
        let late = try await rest.performWithSource(with: accounts).get()
        #expect(late.source == .cache)
        #expect(late.staleReason == .eagerRefresh)
        await rest.waitForBackgroundRefreshes()
        #expect(try await harness.tenant.counters().route(route) == 2)
    }

    @Test("A reload that lowers the threshold refreshes the next hit past it; one that removes it stops refreshing")
    func reloadMovesTheThreshold() async throws {
        let settings = try settings(accounts: 0.9, balances: 0.9)
        let harness = try await FacadeHarness("her-reload", settings: settings)
        let rest = harness.session(.alice).rest
        _ = try await rest.performWithSource(with: accounts).get()
        harness.clock.advance(by: .seconds(360))
        #expect(try await rest.performWithSource(with: accounts).get().staleReason == nil)

        try settings.reload(from: .json(Data(json(accounts: 0.5, balances: 0.9).utf8), source: "lowered"))
        #expect(settings.lowestEagerRefreshThreshold == 0.5)
        #expect(try await rest.performWithSource(with: accounts).get().staleReason == .eagerRefresh)
        await rest.waitForBackgroundRefreshes()
        #expect(try await harness.tenant.counters().route(route) == 2)

        try settings.reload(from: .json(Data(#"{ "domainMap": "banking" }"#.utf8), source: "removed"))
        #expect(settings.lowestEagerRefreshThreshold == nil)
        harness.clock.advance(by: .seconds(590))  // 98 % of the refreshed entry's life
        #expect(try await rest.performWithSource(with: accounts).get().staleReason == nil)
        await rest.waitForBackgroundRefreshes()
        #expect(try await harness.tenant.counters().route(route) == 2)
    }
}
