import FixtureSupport
import Foundation
import RESTCache
import Testing
import UnifiedCache

@Suite("Step 2: the same requests through CacheHub sessions; the granular clears awaited and reported")
struct Step2FacadeTests {
    @Test("a facade route answers from the session's cache; the other session fetches its own")
    func routeIsCachedPerSession() async throws {
        let fixture = try await MigrationFixture("migstep2route")
        let bff = fixture.bff

        let first = try await bff.balance(
            sessionID: "session-alice", userID: "alice", token: "token-alice", accountId: "101")
        let second = try await bff.balance(
            sessionID: "session-alice", userID: "alice", token: "token-alice", accountId: "101")
        let bobs = try await bff.balance(sessionID: "session-bob", userID: "bob", token: "token-bob", accountId: "201")

        #expect(first == Balance(accountId: "101", balance: 2500, availableBalance: 2450))
        #expect(second == first)
        #expect(bobs.accountId == "201")
        #expect(try await fixture.calls("GET /api/accounts/101/balance") == 1)
        #expect(bff.hub.sessionCount == 2)
    }

    @Test("another user's account is the upstream's typed 404, thrown by the route")
    func foreignAccountThrowsTypedError() async throws {
        let fixture = try await MigrationFixture("migstep2foreign")
        do {
            _ = try await fixture.bff.balance(
                sessionID: "session-bob", userID: "bob", token: "token-bob", accountId: "101")
            Issue.record("expected a 404")
        } catch let error as API<BankError> {
            #expect(error.status == 404)
            guard case .http(_, let body) = error else { return }
            #expect(body?.code == "account_not_found")
        }
        #expect(fixture.bob().cacheManager.getCacheStatistics().rest.entryCount == 0)
    }

    @Test("after a payment every clear succeeds and the next balance read is the upstream's new one")
    func paymentClears() async throws {
        let fixture = try await MigrationFixture("migstep2pay")
        let bff = fixture.bff
        _ = try await bff.balance(sessionID: "session-alice", userID: "alice", token: "token-alice", accountId: "101")

        let reports = try await bff.pay(
            sessionID: "session-alice", userID: "alice", token: "token-alice",
            payment: .init(fromAccountId: "101", payeeId: "payee-alice-1", amount: 40))
        let after = try await bff.balance(
            sessionID: "session-alice", userID: "alice", token: "token-alice", accountId: "101")

        #expect(reports.allSatisfy { $0.succeeded })
        #expect(
            reports.map(\.operation) == [
                "clearBalancesCache()", "clearTransactionHistoryCache()", "clearCacheForPaymentListOnly()",
            ])
        #expect(after.availableBalance == 2410)
        #expect(try await fixture.calls("GET /api/accounts/101/balance") == 2)
    }

    @Test("a refused payment throws the upstream's error and leaves the cached balance in place")
    func refusedPaymentKeepsCache() async throws {
        let fixture = try await MigrationFixture("migstep2refused")
        let bff = fixture.bff
        let before = try await bff.balance(
            sessionID: "session-alice", userID: "alice", token: "token-alice", accountId: "101")

        do {
            _ = try await bff.pay(
                sessionID: "session-alice", userID: "alice", token: "token-alice",
                payment: .init(fromAccountId: "101", payeeId: "payee-alice-1", amount: 1_000_000))
            Issue.record("the payment should have been refused")
        } catch let error as API<BankError> {
            #expect(error.status == 422)
        }
        let after = try await fixture.alice().rest.performWithSource(with: BalanceRequest(accountId: "101")).get()

        #expect(after.source == .cache)
        #expect(after.data == before)
    }
}
