import FixtureSupport
import Foundation
import RESTCache
import Synchronization
import UnifiedCache

/// A hub over a fixture tenant with a manual clock, and the two users most tests log in.
struct FacadeHarness {
    let tenant: FixtureTenant
    let clock = ManualCacheClock()
    let hub: CacheHub
    /// Every event the hub emitted, in order.
    let events = EventLog()

    /// - Parameter bankingPresets: whether the hub opts into the bank's presets (entity links, account-learning
    ///   paths and, unless `settings` is given, the domain map), as the bank's BFF does; false keeps the defaults.
    init(
        _ label: String, settings: SettingsStore? = nil, honorsHTTPCaching: Bool = false, bankingPresets: Bool = true,
        resilience: CacheResilience = .none, valueJitter: CacheJitter = .none
    ) async throws {
        tenant = try await FixtureServer.tenant(label)
        var configuration = CacheHub.Configuration(
            restBaseURL: tenant.baseURL,
            graphQLEndpoint: tenant.graphqlURL,
            rest: .init(honorsHTTPCaching: honorsHTTPCaching),
            maintenance: .init(interval: nil)
        )
        configuration.resilience = resilience
        configuration.valueJitter = valueJitter
        hub = try CacheHub(
            configuration: bankingPresets ? configuration.withBankingPresets() : configuration,
            settings: try settings ?? SettingsStore(settings: bankingPresets ? .banking : CacheSettings()),
            clock: clock,
            observer: events.observer
        )
    }

    func session(_ user: FixtureTenant.User) -> CacheSession {
        hub.session(
            id: "session-\(user.rawValue)", principal: VerifiedPrincipal(user.rawValue),
            credentials: .bearer(user.token))
    }

    func counters() async throws -> FixtureCounters { try await tenant.counters() }
}

/// Records a hub's events for assertions.
final class EventLog: Sendable {
    private let recorded = Mutex<[CacheEvent]>([])

    var observer: ClosureCacheEventObserver {
        ClosureCacheEventObserver { event in self.recorded.withLock { $0.append(event) } }
    }

    var all: [CacheEvent] { recorded.withLock { $0 } }

    /// The reasons of the `.sessionEnded` events so far.
    var sessionEndings: [ClearReason] {
        all.compactMap { event in
            if case .sessionEnded(_, let reason) = event { return reason }
            return nil
        }
    }
}

/// Any route decoded as JSON we don't look into.
struct AnyJSON: Decodable, Sendable {
    init(from decoder: any Decoder) throws {}
}

/// A cached GET of a fixture route under a key of the caller's choosing.
struct CachedGET: RequestType {
    typealias Response = AnyJSON
    var path: String
    var key: String
    var domains: Set<String> = []
    var accounts: Set<String> = []
    var isUplifted = false
    var cache: RequestCache? {
        RequestCache(
            key: key, timeout: .seconds(600), isUpliftedCache: isUplifted, domains: domains, accountIds: accounts)
    }
}

/// A session's REST read and GraphQL query, both in flight with their answers held by the fixture: what a test ends a
/// session (or clears it) around, then releases with `tenant.releaseHeldAnswers()`.
struct HeldReads {
    static let accounts = CachedGET(path: "/api/accounts", key: "accountSummary.list")
    static let summary = UntypedGraphQLOperation(
        document: "query AccountSummary { accounts { id name } }", operationName: "AccountSummary")

    let rest: Task<Result<DataWithSource<AnyJSON>, API<CachedGET.ErrorBody>>, Never>
    let graphQL: Task<Result<GraphQLResult<GraphQLJSONObject>, GraphQLCacheError>, Never>

    /// Starts both reads of `session` and returns once the fixture has received both.
    init(of session: CacheSession, in harness: FacadeHarness) async throws {
        try await harness.tenant.holdAnswers(route: "GET /api/accounts")
        try await harness.tenant.holdAnswers(operation: "AccountSummary")
        rest = Task { await session.rest.performWithSource(with: Self.accounts) }
        graphQL = Task { await session.graphQL.fetch(operation: Self.summary) }
        try await waitUntil {
            let counters = try await harness.counters()
            return counters.route("GET /api/accounts") == 1 && counters.operation("AccountSummary") == 1
        }
    }
}
