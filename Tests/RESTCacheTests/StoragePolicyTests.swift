import FixtureSupport
import Foundation
import RESTCache
import Testing

@Suite("A storage policy decides what is stored and for how long")
struct StoragePolicyTests {
    @Test("a policy can refuse storing a domain, so every read goes to the network")
    func policyRefuses() async throws {
        let harness = try await Harness("policyrefuse")
        let service = harness.service(
            configuration: .init(
                honorsHTTPCaching: false,
                storagePolicy: { _, metadata, _ in metadata.domains.contains("balances") ? nil : metadata }
            ))
        _ = try await service.perform(with: BalanceRequest(accountId: "101")).value()
        _ = try await service.perform(with: BalanceRequest(accountId: "101")).value()
        _ = try await service.perform(with: AccountsRequest()).value()
        #expect(try await harness.counters().route("GET /api/accounts/101/balance") == 2)
        #expect(harness.store.keys(in: .session("alice")) == ["accountSummary.accounts"])
    }

    @Test("a policy can change the timeout the request asked for")
    func policyChangesTimeout() async throws {
        let harness = try await Harness("policytimeout")
        let service = harness.service(
            configuration: .init(
                honorsHTTPCaching: false,
                storagePolicy: { _, metadata, _ in
                    var changed = metadata
                    changed.timeout = .seconds(10)
                    return changed
                }
            ))
        let request = BalanceRequest(accountId: "101", timeout: .seconds(600))
        _ = try await service.perform(with: request).value()
        harness.clock.advance(by: .seconds(11))
        #expect(try await service.performWithSource(with: request).value().source == .network)
    }
}
