import CacheCore
import Testing

@testable import GraphQLCache

/// What the client passes as a plan's anchor is its prepared document; any object stands in for one here.
private final class DocumentAnchor: Sendable {}

@Suite("Normalized store: the client's reads")
struct StoreClientReadTests {
    @Test("the client's reads skip gathering touched records; the store's public reads still report them")
    func touchedRecordsOnlyWhereReported() throws {
        let store = try makeNormalizedStore()
        let accounts = try prepare(BankOperations.accounts)
        try store.write(accounts, json: BankOperations.accountsData)
        guard
            case .hit(let clientHit) = try store.read(
                accounts, variables: [:], in: alice, freshness: nil, planAnchor: DocumentAnchor(),
                reportsTouched: false)
        else {
            Issue.record("the client's read missed")
            return
        }
        guard case .hit(let publicHit) = try store.read(accounts, in: alice) else {
            Issue.record("the public read missed")
            return
        }
        #expect(clientHit.data == publicHit.data)
        #expect(clientHit.touchedRecordKeys.isEmpty)
        #expect(publicHit.touchedRecordKeys.contains("QUERY_ROOT"))
        #expect(publicHit.touchedRecordKeys.count > 1)
    }

    @Test("a client's read that misses still names the missing path")
    func missWithoutTouchedRecords() throws {
        let store = try makeNormalizedStore()
        let accounts = try prepare(BankOperations.accounts)
        try store.write(accounts, json: BankOperations.accountsData)
        store.removeRecord("Account:102", in: alice)
        guard
            case .miss(let miss) = try store.read(
                accounts, variables: [:], in: alice, freshness: nil, planAnchor: DocumentAnchor(),
                reportsTouched: false)
        else {
            Issue.record("expected a miss")
            return
        }
        #expect(miss.path == "accounts.1")
        #expect(miss.reason == .missingRecord("Account:102"))
        #expect(miss.touchedRecordKeys.isEmpty)
    }
}
