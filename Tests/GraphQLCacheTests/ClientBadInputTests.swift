import CacheCore
import FixtureSupport
import GraphQLCache
import Testing

@Suite("GraphQL client: bad input gives a typed error and leaves the store unchanged")
struct ClientBadInputTests {
    private struct Unparseable: GraphQLQuery {
        static let document = "query Broken { accounts { id "
        static let operationName = "Broken"
        struct Data: Decodable, Sendable {}
    }

    private struct WrongName: GraphQLQuery {
        static let document = "query Right { accounts { id } }"
        static let operationName = "Wrong"
        struct Data: Decodable, Sendable {}
    }

    @Test("an unparseable document is invalidOperation with the parser's error and location; nothing is sent")
    func unparseable() async throws {
        let harness = try await ClientHarness("badsyntax")
        let client = try harness.client()
        let error = try #require(await client.fetch(query: Unparseable()).failure)
        #expect(error.code == .invalidOperation)
        #expect((error.underlying as? GraphQLLanguageError)?.code == .syntaxError)
        #expect(error.locations.first?.line == 1)
        #expect(try await harness.tenant.counters().requests == 0)
    }

    @Test("an unknown operation name is invalidOperation")
    func unknownOperationName() async throws {
        let harness = try await ClientHarness("badname")
        let client = try harness.client()
        let error = try #require(await client.fetch(query: WrongName()).failure)
        #expect(error.code == .invalidOperation)
        #expect((error.underlying as? GraphQLLanguageError)?.code == .operationNotFound)
    }

    @Test("a mutation given to fetch, or a query to perform, is invalidOperation")
    func wrongKind() async throws {
        let harness = try await ClientHarness("badkind")
        let client = try harness.client()
        let mutation = UntypedGraphQLOperation(document: MakePaymentMutation.document)
        #expect(await client.fetch(operation: mutation).failure?.code == .invalidOperation)
        let query = UntypedGraphQLOperation(document: AccountSummaryQuery.document)
        #expect(await client.perform(operation: query).failure?.code == .invalidOperation)
        #expect(try await harness.tenant.counters().requests == 0)
    }

    @Test("variables of the wrong shape are invalidOperation naming the variable, never the value")
    func wrongVariables() async throws {
        let harness = try await ClientHarness("badvars")
        let client = try harness.client()
        let document = "query V($id: ID!, $first: Int, $flags: [Boolean!]) { account(id: $id) { id } }"
        let cases: [(GraphQLJSONObject, String)] = [
            ([:], "$id"),
            (["id": nil], "$id"),
            (["id": true], "$id"),
            (["id": "101", "first": "secret-text"], "$first"),
            (["id": "101", "first": 3_000_000_000], "$first"),
            (["id": "101", "flags": [true, nil]], "$flags"),
        ]
        for (variables, name) in cases {
            let operation = UntypedGraphQLOperation(document: document, variables: variables)
            let error = try #require(await client.fetch(operation: operation).failure)
            #expect(error.code == .invalidOperation)
            #expect(error.message.contains(name))
            #expect(!error.description.contains("secret-text"))
        }
        let sent = "query V($id: ID!, $first: Int) { account(id: $id) { id transactions(first: $first) { id } } }"
        let fine = UntypedGraphQLOperation(document: sent, variables: ["id": 101, "first": 2])
        #expect(try await client.fetch(operation: fine).value().data["account"]?["id"] == "101")
        #expect(try await harness.count("V") == 1)
    }

    @Test("a non-JSON answer is invalidResponse; the store is unchanged")
    func nonJSONAnswer() async throws {
        let harness = try await ClientHarness("badjson")
        let client = try harness.client()
        _ = try await client.fetch(query: AccountBalanceQuery(id: "101")).value()
        let before = harness.store.records(in: client.scope)
        try await harness.tenant.inject(.malformed, operation: "AccountSummary")
        let error = try #require(await client.fetch(query: AccountSummaryQuery()).failure)
        #expect(error.code == .invalidResponse)
        #expect((error.underlying as? GraphQLLanguageError)?.code == .invalidJSON)
        #expect(harness.store.records(in: client.scope) == before)
    }

    @Test("JSON that is not a GraphQL response is invalidResponse")
    func notAGraphQLResponse() async throws {
        let harness = try await ClientHarness("badshape")
        let client = try harness.client()
        for body in [#"[1,2]"#, #"{"data":"text"}"#, #"{"other":1}"#, #"{"data":null}"#, #"{"errors":"x"}"#] {
            try await harness.injectAnswer(status: 200, body: body, operation: "AccountSummary")
            let error = try #require(await client.fetch(query: AccountSummaryQuery()).failure)
            #expect(error.code == .invalidResponse, "body \(body)")
        }
        #expect(harness.store.recordCount(in: client.scope) == 0)
    }

    @Test("data that does not match the selection is responseMismatch; the store is unchanged")
    func dataMismatch() async throws {
        let harness = try await ClientHarness("badmatch")
        let client = try harness.client()
        _ = try await client.fetch(query: AccountBalanceQuery(id: "101")).value()
        let before = harness.store.records(in: client.scope)
        let body = #"{"data":{"accounts":[{"__typename":"Account","id":"101","name":"X"}]}}"#
        try await harness.injectAnswer(status: 200, body: body, operation: "AccountSummary")
        let error = try #require(await client.fetch(query: AccountSummaryQuery()).failure)
        #expect(error.code == .responseMismatch)
        #expect(error.path == "accounts.0.balance")
        #expect(harness.store.records(in: client.scope) == before)
    }

    @Test("cached data that does not decode into the caller's type is decodingFailed for cache only")
    func decodingFailure() async throws {
        struct WrongType: GraphQLQuery {
            static let document = AccountSummaryQuery.document
            static let operationName = AccountSummaryQuery.operationName
            struct Data: Decodable, Sendable {
                var accounts: [Int]
            }
        }
        let harness = try await ClientHarness("baddecode")
        let client = try harness.client()
        _ = try await client.fetch(query: AccountSummaryQuery()).value()
        let cached = await client.fetch(query: WrongType(), cachePolicy: .returnCacheDataDontFetch)
        #expect(cached.failure?.code == .decodingFailed)
        let fetched = await client.fetch(query: WrongType())
        #expect(fetched.failure?.code == .decodingFailed)
        #expect(try await client.fetch(query: AccountSummaryQuery()).value().source == .cache)
    }
}
