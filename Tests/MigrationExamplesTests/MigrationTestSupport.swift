import FixtureSupport
import Foundation
import GraphQLCache
import RESTCache
import UnifiedCache

/// The examples' `BankBFF` over a fresh fixture tenant, with a clock the tests move.
struct MigrationFixture {
    let tenant: FixtureTenant
    let clock = ManualCacheClock()
    let bff: BankBFF

    init(_ label: String, settings: SettingsStore? = nil) async throws {
        tenant = try await FixtureServer.tenant(label)
        bff = try BankBFF(
            upstream: tenant.baseURL, settings: settings ?? SettingsStore(settings: .banking), clock: clock)
    }

    /// Alice's session: accounts 101 and 102.
    func alice() -> CacheSession {
        bff.session("session-alice", userID: "alice", token: FixtureTenant.User.alice.token)
    }
    /// Bob's session: accounts 201 and 202.
    func bob() -> CacheSession { bff.session("session-bob", userID: "bob", token: FixtureTenant.User.bob.token) }

    /// Upstream calls the tenant counted for a REST route (`"GET /api/accounts"`).
    func calls(_ route: String) async throws -> Int { try await tenant.counters().route(route) }
    /// Upstream calls the tenant counted for a GraphQL operation.
    func operationCalls(_ name: String) async throws -> Int { try await tenant.counters().operation(name) }
}

/// The account summary over REST, cached under the summary domain's prefix: data no balance clear may touch.
struct AccountsRequest: RequestType {
    struct Account: Decodable, Sendable { var id: String }
    typealias Response = [Account]
    var path: String { "/api/accounts" }
    var cache: RequestCache? { RequestCache(key: "accountSummary.accounts", timeout: .seconds(600)) }
}

/// The account summary over GraphQL.
let accountSummaryOperation = UntypedGraphQLOperation(
    document: "query AccountSummary { accounts { id name type currency } }",
    operationName: "AccountSummary"
)

/// A search over GraphQL, named as the examples' search domain lists it.
let searchOperation = UntypedGraphQLOperation(
    document: """
        query Search($term: String!) {
          search(term: $term) { ... on Account { id name } ... on Payee { id name } }
        }
        """,
    operationName: "Search",
    variables: ["term": "Everyday"]
)

extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}

/// A temporary settings file, removed by `remove()`.
struct TemporarySettingsFile {
    let path: String

    init(_ contents: String) throws {
        path =
            FileManager.default.temporaryDirectory
            .appendingPathComponent("ucache-migration-\(UUID().uuidString).json").path
        try Data(contents.utf8).write(to: URL(fileURLWithPath: path))
    }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}
