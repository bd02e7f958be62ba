import CacheCore
import FixtureSupport
import Foundation
import RESTCache
import Testing

/// The `RESTCacheError` a throwing read fails with, or nil when it answers (any other error is recorded as an issue).
private func thrownError<Value>(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Value
) async -> RESTCacheError? {
    do {
        _ = try await body()
        return nil
    } catch let error as RESTCacheError {
        return error
    } catch {
        Issue.record("expected a RESTCacheError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

@Suite("The throwing reads answer as the Result ones do and throw RESTCacheError with a stable code")
struct ThrowingReadTests {
    @Test("response(for:) returns the decoded answer; the second read is a cache hit, as perform(with:) is")
    func answers() async throws {
        let harness = try await Harness("throwok")
        let service = harness.service()
        let balance = try await service.response(for: BalanceRequest(accountId: "101"))
        #expect(balance.accountId == "101")
        let again = try await service.responseWithSource(for: BalanceRequest(accountId: "101"))
        #expect(again.source == .cache)
        #expect(again.data == balance)
        #expect(try await harness.counters().route("GET /api/accounts/101/balance") == 1)
    }

    @Test("an error status is thrown as httpStatus with the status and the decoded error body reachable")
    func httpError() async throws {
        let harness = try await Harness("throwhttp")
        let service = harness.service()
        let error = try #require(
            await thrownError {
                try await service.response(for: BalanceRequest(accountId: "201"))  // bob's account: alice gets 404
            })
        #expect(error.code == .httpStatus)
        #expect(error.httpStatus == 404)
        let body = try #require(error.errorBody(as: BankErrorBody.self))
        #expect(!body.error.isEmpty)
        #expect(error.api(BankErrorBody.self)?.status == 404)
        #expect(error.errorBody(as: String.self) == nil)
        #expect(error.transportError == nil)
        #expect(!error.description.contains(body.error))
        #expect(harness.store.entryCount(in: .session("alice")) == 0)
    }

    @Test("a dropped connection is thrown as transportFailed carrying the CurlHTTPError")
    func transportError() async throws {
        let harness = try await Harness("throwdrop")
        let service = harness.service()
        try await harness.tenant.inject(.drop, route: "GET /api/accounts")
        let error = try #require(
            await thrownError {
                try await service.responseWithSource(for: AccountsRequest())
            })
        #expect(error.code == .transportFailed)
        #expect(error.transportError != nil)
        #expect(error.httpStatus == nil)
        guard case .network = error.api(BankErrorBody.self) else {
            Issue.record("expected the seeds' API.network, got \(String(describing: error.api(BankErrorBody.self)))")
            return
        }
    }

    @Test("a closed service throws closed and sends nothing")
    func closed() async throws {
        let harness = try await Harness("throwclosed")
        let service = harness.service()
        service.close()
        let error = try #require(
            await thrownError {
                try await service.response(for: BalanceRequest(accountId: "101"))
            })
        #expect(error.code == .closed)
        #expect(try await harness.counters().requests == 0)
    }

    @Test("cacheOnly with nothing cached throws cacheMiss and sends nothing")
    func cacheMiss() async throws {
        let harness = try await Harness("throwmiss")
        let service = harness.service()
        let error = try #require(
            await thrownError {
                try await service.response(for: BalanceRequest(accountId: "101", cachePolicy: .cacheOnly))
            })
        #expect(error.code == .cacheMiss)
        #expect(try await harness.counters().requests == 0)
        guard case .cacheMiss = error.api(BankErrorBody.self) else {
            Issue.record("expected the seeds' API.cacheMiss, got \(String(describing: error.api(BankErrorBody.self)))")
            return
        }
    }
}
