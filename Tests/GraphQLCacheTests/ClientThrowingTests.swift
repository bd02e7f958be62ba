import CacheCore
import FixtureSupport
import Foundation
import GraphQLCache
import Testing

/// The `GraphQLCacheError` a throwing read fails with, or nil when it answers (any other error is recorded as an issue).
private func thrownError<Value>(
    sourceLocation: SourceLocation = #_sourceLocation,
    _ body: () async throws -> Value
) async -> GraphQLCacheError? {
    do {
        _ = try await body()
        return nil
    } catch let error as GraphQLCacheError {
        return error
    } catch {
        Issue.record("expected a GraphQLCacheError, got \(error)", sourceLocation: sourceLocation)
        return nil
    }
}

private let untypedSummary = UntypedGraphQLOperation(
    document: "query AccountSummary { accounts { id name balance } }", operationName: "AccountSummary")

@Suite("The throwing reads answer as fetch does and throw GraphQLCacheError with a stable code")
struct ClientThrowingTests {
    @Test("data(for:) returns the typed data; result(for:) says the second answer came from the cache")
    func typedAnswers() async throws {
        let harness = try await ClientHarness("gqlthrowok")
        let client = try harness.client()
        let data = try await client.data(for: AccountSummaryQuery())
        #expect(!data.accounts.isEmpty)
        let again = try await client.result(for: AccountSummaryQuery())
        #expect(again.source == .cache)
        #expect(again.data == data)
        #expect(try await harness.count("AccountSummary") == 1)
    }

    @Test("the untyped forms return the data object, and the second answer comes from the cache")
    func untypedAnswers() async throws {
        let harness = try await ClientHarness("gqlthrowuntyped")
        let client = try harness.client()
        let data = try await client.data(for: untypedSummary)
        #expect(data["accounts"] != nil)
        #expect(try await client.result(for: untypedSummary).source == .cache)
        #expect(try await harness.count("AccountSummary") == 1)
    }

    @Test("an error status is thrown as httpStatus with the status, for typed and untyped reads")
    func httpError() async throws {
        let harness = try await ClientHarness("gqlthrowhttp")
        let client = try harness.client()
        try await harness.tenant.inject(.status(503), operation: "AccountSummary", count: 2)
        let typed = try #require(
            await thrownError {
                try await client.data(for: AccountSummaryQuery())
            })
        #expect(typed.code == .httpStatus)
        #expect(typed.httpStatus == 503)
        let untyped = try #require(
            await thrownError {
                try await client.result(for: untypedSummary)
            })
        #expect(untyped.code == .httpStatus)
        #expect(untyped.httpStatus == 503)
        #expect(harness.store.recordCount(in: client.scope) == 0)
    }

    @Test("a dropped connection is thrown as transportFailed carrying the CurlHTTPError")
    func transportError() async throws {
        let harness = try await ClientHarness("gqlthrowdrop")
        let client = try harness.client()
        try await harness.tenant.inject(.drop, operation: "AccountSummary")
        let error = try #require(
            await thrownError {
                try await client.data(for: AccountSummaryQuery())
            })
        #expect(error.code == .transportFailed)
        #expect(error.transportError != nil)
    }

    @Test("a closed client throws closed from every throwing read and sends nothing")
    func closed() async throws {
        let harness = try await ClientHarness("gqlthrowclosed")
        let client = try harness.client()
        client.close()
        let errors = [
            await thrownError { try await client.data(for: AccountSummaryQuery()) },
            await thrownError { try await client.result(for: AccountSummaryQuery()) },
            await thrownError { try await client.data(for: untypedSummary) },
            await thrownError { try await client.result(for: untypedSummary) },
        ]
        for error in errors {
            #expect(error?.code == .closed)
        }
        #expect(try await harness.count("AccountSummary") == 0)
    }
}
