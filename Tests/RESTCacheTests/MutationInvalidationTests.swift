import FixtureSupport
import Foundation
import RESTCache
import Testing

@Suite("Mutations invalidate what they change")
struct MutationInvalidationTests {
    private let configuration = APIService.Configuration(
        honorsHTTPCaching: false,
        invalidationRules: [
            InvalidationRule("POST /api/payments", invalidates: [.domain("balances"), .domain("accountSummary")])
        ]
    )

    @Test("a successful payment invalidates the balances and account summary, nothing else")
    func paymentInvalidatesByRule() async throws {
        let harness = try await Harness("mutation")
        let service = harness.service(configuration: configuration)
        let before = try await service.perform(with: BalanceRequest(accountId: "101")).value()
        _ = try await service.perform(with: AccountsRequest()).value()
        _ = try await service.perform(with: PayeesRequest()).value()

        let payment = PaymentRequest(
            body: .init(fromAccountId: "101", payeeId: "payee-alice-1", amount: 25, reference: "t"))
        let paid = try await service.perform(with: payment).value()
        #expect(paid.account.balance == before.balance - 25)

        let after = try await service.performWithSource(with: BalanceRequest(accountId: "101")).value()
        #expect(after.source == .network)
        #expect(after.data.balance == before.balance - 25)
        #expect(try await service.performWithSource(with: AccountsRequest()).value().source == .network)
        #expect(try await service.performWithSource(with: PayeesRequest()).value().source == .cache)
    }

    @Test("a mutation invalidates the entries read from its own path")
    func ownPathInvalidation() async throws {
        let harness = try await Harness("ownpath")
        let service = harness.service(configuration: configuration)
        let payees = try await service.perform(with: PayeesRequest()).value()
        _ = try await service.perform(
            with: AddPayeeRequest(body: .init(name: "New", bsb: "000-000", accountNumber: "1"))
        ).value()
        let after = try await service.performWithSource(with: PayeesRequest()).value()
        #expect(after.source == .network)
        #expect(after.data.count == payees.count + 1)
    }

    @Test("a failed mutation invalidates nothing")
    func failedMutationInvalidatesNothing() async throws {
        let harness = try await Harness("mutationfail")
        let service = harness.service(configuration: configuration)
        _ = try await service.perform(with: BalanceRequest(accountId: "101")).value()
        let tooMuch = PaymentRequest(
            body: .init(fromAccountId: "101", payeeId: "payee-alice-1", amount: 1e9, reference: nil))
        #expect(await service.perform(with: tooMuch).failure?.status == 422)
        #expect(try await service.performWithSource(with: BalanceRequest(accountId: "101")).value().source == .cache)
    }
}
