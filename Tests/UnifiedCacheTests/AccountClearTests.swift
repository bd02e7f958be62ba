import FixtureSupport
import Foundation
import RESTCache
import Testing
import UnifiedCache

@Suite("Clearing by account id or token reaches the account's entries whichever identifier they carry")
struct AccountClearTests {
    @Test("pairs learned from an upstream answer let a token clear remove entries recorded by id, and back")
    func learnedPairs() async throws {
        let harness = try await FacadeHarness("accounts")
        let alice = harness.session(.alice)
        _ = try await alice.rest.perform(with: CachedGET(path: "/api/accounts", key: "accountSummary.list")).get()
        #expect(alice.accounts.identifiers(of: "atok-101") == ["atok-101", "101"])

        let byId = CachedGET(path: "/api/accounts/101/balance", key: "balances.101", accounts: ["101"])
        let byToken = CachedGET(path: "/api/accounts/by-token/atok-101", key: "details.atok", accounts: ["atok-101"])
        let other = CachedGET(path: "/api/accounts/102/balance", key: "balances.102", accounts: ["102"])
        for request in [byId, byToken, other] { _ = try await alice.rest.perform(with: request).get() }

        let report = await alice.cacheManager.clearCache(forAccountToken: "atok-101")
        // byId, byToken, and the account list, whose answer describes Account:101 (entity links).
        #expect(report.entries == 3)
        let list = CachedGET(path: "/api/accounts", key: "accountSummary.list")
        #expect(try await alice.rest.performWithSource(with: list).get().source == .network)
        #expect(try await alice.rest.performWithSource(with: byId).get().source == .network)
        #expect(try await alice.rest.performWithSource(with: byToken).get().source == .network)
        #expect(try await alice.rest.performWithSource(with: other).get().source == .cache)
    }

    @Test("an account clear also finds entries whose answer describes the account (entity links)")
    func entityKeyedEntries() async throws {
        let harness = try await FacadeHarness("accountsentity")
        let alice = harness.session(.alice)
        let balance = CachedGET(path: "/api/accounts/101/balance", key: "balances.101")  // no accountIds declared
        let other = CachedGET(path: "/api/accounts/102/balance", key: "balances.102")
        _ = try await alice.rest.perform(with: balance).get()
        _ = try await alice.rest.perform(with: other).get()
        #expect(await alice.cacheManager.clearCache(forAccountId: "101").entries == 1)
        #expect(try await alice.rest.performWithSource(with: balance).get().source == .network)
        #expect(try await alice.rest.performWithSource(with: other).get().source == .cache)
    }

    @Test("an unknown account clears nothing")
    func unknownAccount() async throws {
        let harness = try await FacadeHarness("accountsnone")
        let alice = harness.session(.alice)
        _ = try await alice.rest.perform(
            with: CachedGET(
                path: "/api/accounts/101/balance", key: "balances.101",
                accounts: ["101"])
        ).get()
        #expect(await alice.cacheManager.clearCache(forAccountId: "999").entries == 0)
    }
}
