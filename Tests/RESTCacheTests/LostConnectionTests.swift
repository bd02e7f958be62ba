import FixtureSupport
import Foundation
import RESTCache
import Testing

/// The fixture's `dropReused` fault: the upstream reads a request that came on a reused keep-alive connection, then
/// closes the connection without answering.
@Suite("A payment whose reused connection died")
struct LostConnectionTests {
    @Test("is sent once and fails as a network error with notRetried")
    func paymentIsNotResent() async throws {
        let harness = try await Harness("lostpayment")
        let service = harness.service()
        _ = try await service.perform(with: BalanceRequest(accountId: "101")).value()  // opens the connection
        try await harness.tenant.inject(.dropReused, route: "POST /api/payments")

        let payment = PaymentRequest(
            body: .init(fromAccountId: "101", payeeId: "payee-alice-1", amount: 25, reference: "lost"))
        let result = await service.perform(with: payment)
        guard case .failure(.network(let error)) = result else {
            Issue.record("expected a network failure, got \(result)")
            return
        }
        #expect(error.code == .notRetried)
        let counters = try await harness.counters()
        #expect(counters.route("POST /api/payments") == 1)
        #expect(counters.statuses["201"] == nil)
    }

    @Test("with an Idempotency-Key header, is resent once and succeeds")
    func paymentWithIdempotencyKeyIsResent() async throws {
        let harness = try await Harness("lostpaymentkey")
        let service = harness.service()
        _ = try await service.perform(with: BalanceRequest(accountId: "101")).value()
        try await harness.tenant.inject(.dropReused, route: "POST /api/payments")

        var payment = KeyedPaymentRequest()
        payment.body = .init(fromAccountId: "101", payeeId: "payee-alice-1", amount: 25, reference: "keyed")
        let paid = try await service.perform(with: payment).value()
        #expect(paid.account.id == "101")
        #expect(try await harness.counters().route("POST /api/payments") == 2)
    }
}

/// A payment carrying an `Idempotency-Key`, as an upstream that de-duplicates payments asks for.
private struct KeyedPaymentRequest: RequestType {
    typealias Response = PaymentRequest.Response
    typealias ErrorBody = BankErrorBody
    var method: CurlHTTPClient.Method { .post }
    var path: String { "/api/payments" }
    var headers: CurlHTTPClient.Headers { ["Idempotency-Key": "payment-7f3a"] }
    var body: PaymentRequest.Body?
}
