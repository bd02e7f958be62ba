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
