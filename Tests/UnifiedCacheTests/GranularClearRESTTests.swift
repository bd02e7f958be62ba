import FixtureSupport
import Foundation
import RESTCache
import Testing
import UnifiedCache

/// One REST entry per feature, found by key prefix, by route or by declared domain, as callers write them.
private func featureRequests(accountId: String) -> [(domain: String, request: CachedGET)] {
    [
        ("balances", CachedGET(path: "/api/accounts/\(accountId)/balance", key: "balances.\(accountId)")),
        ("paymentList", CachedGET(path: "/api/payments", key: "payments.recent")),  // found by route
        ("accountSummary", CachedGET(path: "/api/accounts", key: "accountSummary.list")),
        (
            "transactionHistory",
            CachedGET(
                path: "/api/accounts/\(accountId)/transactions", key: "tx.page1",
                domains: ["transactionHistory"])
        ),
        ("cardsExperience", CachedGET(path: "/api/cards", key: "cardsExperienceV3.page_1.key")),
        ("payees", CachedGET(path: "/api/payees", key: "payees.all")),
        ("scheduledPayments", CachedGET(path: "/api/scheduled-payments", key: "scheduledPayments.list")),
        ("userProfile", CachedGET(path: "/api/profile", key: "userProfile.me")),
        ("statements", CachedGET(path: "/api/statements", key: "statements.all")),
        ("offers", CachedGET(path: "/api/offers", key: "offers.list")),
        ("notifications", CachedGET(path: "/api/notifications", key: "notifications.list")),
        ("featureFlags", CachedGET(path: "/api/feature-flags", key: "featureFlags.all")),
    ]
}

@Suite("Each granular clear removes exactly its feature's REST entries, in one session only")
struct GranularClearRESTTests {
    @Test(
        "a feature clear removes its domain and nothing else, and leaves the other session alone",
        arguments: granularMethods.indices)
    func featureClear(index: Int) async throws {
        let (domain, clear) = granularMethods[index]
        let harness = try await FacadeHarness("granular\(index)")
        let alice = harness.session(.alice)
        let bob = harness.session(.bob)
        for (session, account) in [(alice, "101"), (bob, "201")] {
            for (_, request) in featureRequests(accountId: account) {
                guard case .success = await session.rest.perform(with: request) else {
                    Issue.record("could not populate \(request.path)")
                    return
                }
            }
        }
        let report = await clear(alice.cacheManager)
        #expect(report.succeeded)
        #expect(report.entries == 1, "\(domain): \(report)")

        for (session, account) in [(alice, "101"), (bob, "201")] {
            for (feature, request) in featureRequests(accountId: account) {
                let source = try await session.rest.performWithSource(with: request).get().source
                let expected: ResponseSource = (session === alice && feature == domain) ? .network : .cache
                #expect(source == expected, "\(feature) in \(session === alice ? "alice" : "bob") after \(domain)")
            }
        }
    }

    @Test("uplifted entries survive feature and account clears, not clearCache()")
    func upliftedSurvival() async throws {
        let harness = try await FacadeHarness("uplifted")
        let alice = harness.session(.alice)
        let uplifted = CachedGET(
            path: "/api/accounts/101/balance", key: "balances.101", accounts: ["101"], isUplifted: true)
        _ = try await alice.rest.perform(with: uplifted).get()
        #expect(await alice.cacheManager.clearBalancesCache().entries == 0)
        #expect(await alice.cacheManager.clearCache(forAccountId: "101").entries == 0)
        #expect(try await alice.rest.performWithSource(with: uplifted).get().source == .cache)
        #expect(await alice.cacheManager.clearCache().entries == 1)
        #expect(try await alice.rest.performWithSource(with: uplifted).get().source == .network)
    }
}
