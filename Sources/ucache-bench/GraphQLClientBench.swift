import CacheCore
import FixtureSupport
import Foundation
import GraphQLCache

/// Cache-first hits through `GraphQLClient.fetch(query:)`: the whole client path (document lookup, query key,
/// freshness, store read and decode), on data the fixture server answered for the bench user.
enum ClientHitBench {
    private struct AllAccounts: GraphQLQuery {
        typealias Data = BenchData
        static let document = BenchResponse.query
        static let operationName = "BenchAccounts"
    }

    private struct OneAccount: GraphQLQuery {
        static let document = """
            query BenchAccount($id: ID!) {
              account(id: $id) { id accountToken name type balance availableBalance currency }
            }
            """
        static let operationName = "BenchAccount"

        var variables: GraphQLJSONObject {
            ["id": "b001"]
        }

        struct Data: Decodable, Sendable {
            var account: Account?
        }

        struct Account: Decodable, Sendable {
            var id: String
            var accountToken: String
            var name: String
            var type: String
            var balance: Double
            var availableBalance: Double
            var currency: String
        }
    }

    /// One account by id, the id given per call: the per-user query of a BFF.
    private struct AccountByID: GraphQLQuery {
        typealias Data = OneAccount.Data
        static let document = OneAccount.document
        static let operationName = "BenchAccount"
        let id: String

        var variables: GraphQLJSONObject {
            ["id": .string(id)]
        }
    }

    /// Times `count` cache-first hits of the one-account query round-robin over `ids` distinct ids (every one
    /// written into the client's store first, as earlier answers for as many users would have), so every hit
    /// asks for another id than the one before.
    static func measureRoundRobin(_ count: Int, ids: Int) async throws -> Samples {
        guard count > 0, ids > 0 else {
            return Samples()
        }
        let store = try GraphQLNormalizedStore(
            cacheConfiguration: .typenameAndID(),
            configuration: .init(maxRecordsPerScope: ids * 2, maxBytesPerScope: ids * 4_096)
        )
        let scope = CacheScope.session("bench")
        let operation = try GraphQLParser.parse(
            """
            query BenchAccount($id: ID!) {
              account(id: $id) { __typename id accountToken name type balance availableBalance currency }
            }
            """
        ).prepare(operationName: nil)
        let names = (0..<ids).map { String(format: "rr%06d", $0) }
        for id in names {
            let account: GraphQLJSONObject = [
                "__typename": "Account", "id": .string(id), "accountToken": .string("tok-" + id), "name": "Everyday",
                "type": "CHECKING", "balance": 120.5, "availableBalance": 100.25, "currency": "EUR",
            ]
            _ = try store.write(
                operation, variables: ["id": .string(id)], data: ["account": .object(account)], in: scope)
        }
        let client = try GraphQLClient(
            url: "http://127.0.0.1:9/graphql",  // never called: every fetch is a hit
            transport: try CurlHTTPClient(),
            store: store,
            scope: scope
        )
        let queries = names.map { AccountByID(id: $0) }
        for index in 0..<min(ids, 1_000) {
            _ = await client.fetch(query: queries[index])
        }
        var samples = Samples()
        samples.reserve(count)
        for index in 0..<count {
            let query = queries[index % ids]
            let begin = monotonicNanoseconds()
            let result = await client.fetch(query: query)
            samples.append(monotonicNanoseconds() - begin)
            guard case .success(let answer) = result, answer.source == .cache, answer.data.account?.id == query.id
            else {
                throw BenchError("a round-robin hit of \(query.id) missed or failed")
            }
        }
        return samples
    }

    /// Times `all` hits of the 2,100-entity query and `one` hits of the one-account query (0: skipped).
    static func measure(all: Int, one: Int) async throws -> (Samples, Samples) {
        guard all > 0 || one > 0 else {
            return (Samples(), Samples())
        }
        let tenant = try await FixtureServer.tenant("benchclient")
        let client = try GraphQLClient(
            url: tenant.graphqlURL,
            transport: try CurlHTTPClient(),
            store: try GraphQLNormalizedStore(cacheConfiguration: .typenameAndID()),
            scope: .session("bench"),
            credentials: .bearer(FixtureTenant.User.bench.token)
        )
        let allSamples = try await hits(all, client: client, query: AllAccounts()) { data in
            data.accounts.count == 100 && data.accounts.allSatisfy { $0.transactions.count == 20 }
        }
        let oneSamples = try await hits(one, client: client, query: OneAccount()) { $0.account?.id == "b001" }
        return (allSamples, oneSamples)
    }

    private static func hits<Query: GraphQLQuery>(
        _ count: Int,
        client: GraphQLClient,
        query: Query,
        check: (Query.Data) -> Bool
    ) async throws -> Samples {
        guard count > 0 else {
            return Samples()
        }
        let first = try await client.fetch(query: query).get()
        guard first.source == .network, check(first.data) else {
            throw BenchError("the first fetch of \(Query.operationName) did not answer as expected")
        }
        for _ in 0..<max(20, count / 10) {
            _ = await client.fetch(query: query)
        }
        var samples = Samples()
        samples.reserve(count)
        for _ in 0..<count {
            let begin = monotonicNanoseconds()
            let result = await client.fetch(query: query)
            samples.append(monotonicNanoseconds() - begin)
            guard case .success(let answer) = result, answer.source == .cache else {
                throw BenchError("a hit of \(Query.operationName) missed or failed")
            }
        }
        return samples
    }
}
