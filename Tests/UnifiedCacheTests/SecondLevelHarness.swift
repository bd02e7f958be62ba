import FixtureSupport
import Foundation
import RedisReplication
import Testing

@testable import UnifiedCache

/// Two hubs in one process — two replicas of a BFF fleet — over one fixture tenant, sharing a second level in a real
/// Redis (under a key prefix of their own) and one manual clock; optionally replicating clears over the same Redis.
struct SecondLevelHarness {
    static let secret = "l2-fleet-secret-for-tests-0123456789"
    let tenant: FixtureTenant
    let clock = ManualCacheClock()
    let redisURL: String
    let a: CacheHub
    let b: CacheHub
    /// The stores of A and B, for what their hubs' statistics do not say (a cluster's nodes connected).
    let stores: (a: RedisSecondLevelStore, b: RedisSecondLevelStore)

    /// - Parameters:
    ///   - redisURL: a server of the test's own (to pause or kill); the shared test Redis when nil.
    ///   - redisURLOfB: the URL replica B uses when not `redisURL` (another node of a cluster).
    ///   - replicating: whether clears also travel over the replication bus (logout tests).
    ///   - readDeadline: patient by default, so a loaded machine never turns a hit into a timeout.
    init(
        _ label: String, redisURL: String? = nil, redisURLOfB: String? = nil, replicating: Bool = false,
        readDeadline: Duration = .milliseconds(TestTiming.milliseconds(10_000)),
        secrets: (a: SecondLevelSecret, b: SecondLevelSecret)? = nil,
        settings: @Sendable () throws -> SettingsStore = { try SettingsStore(settings: .banking) },
        secondLevelObserverOfB: (@Sendable (SecondLevelEvent) -> Void)? = nil,
        replicationClocks: (a: any CacheClock, b: any CacheClock)? = nil,
        circuitBreaker: SecondLevelConfiguration.CircuitBreaker? = .init(),
        instrumentationOfB: (any CacheInstrumentation)? = nil
    ) async throws {
        tenant = try await FixtureServer.tenant(label)
        var url = redisURL ?? ""
        if url.isEmpty { url = try await RedisTestServer.sharedURL() }
        self.redisURL = url
        let unique = "\(label):\(UUID().uuidString.prefix(8))"
        let storeOfA: RedisSecondLevelStore
        let storeOfB: RedisSecondLevelStore
        (a, storeOfA) = try Self.hub(
            tenant: tenant, clock: clock, url: url, unique: unique, replicating: replicating, deadline: readDeadline,
            settings: try settings(), secret: secrets?.a, replicationClock: replicationClocks?.a,
            circuitBreaker: circuitBreaker)
        (b, storeOfB) = try Self.hub(
            tenant: tenant, clock: clock, url: redisURLOfB ?? url, unique: unique, replicating: replicating,
            deadline: readDeadline,
            settings: try settings(), secret: secrets?.b, observer: secondLevelObserverOfB,
            replicationClock: replicationClocks?.b, circuitBreaker: circuitBreaker, instrumentation: instrumentationOfB)
        stores = (storeOfA, storeOfB)
        for hub in [a, b] {
            try await waitUntil { hub.secondLevelStatistics?.store.isConnected == true }
            if replicating {
                try await waitUntil {
                    let statistics = hub.replicationStatistics
                    return statistics?.linkState == .subscribed && (statistics?.gapsRecovered ?? 0) >= 1
                }
            }
        }
    }

    static func hub(
        tenant: FixtureTenant, clock: ManualCacheClock, url: String, unique: String, replicating: Bool,
        deadline: Duration, settings: SettingsStore, secret: SecondLevelSecret? = nil,
        observer: (@Sendable (SecondLevelEvent) -> Void)? = nil, replicationClock: (any CacheClock)? = nil,
        circuitBreaker: SecondLevelConfiguration.CircuitBreaker? = .init(),
        instrumentation: (any CacheInstrumentation)? = nil
    ) throws -> (CacheHub, RedisSecondLevelStore) {
        var storeConfiguration = try RedisSecondLevelConfiguration(url: url)
        storeConfiguration.keyPrefix = "ucache-test:l2front:\(unique):"
        storeConfiguration.connection.commandTimeout = .milliseconds(TestTiming.milliseconds(1_000))
        storeConfiguration.connection.pingInterval = .milliseconds(250)
        storeConfiguration.connection.initialBackoff = .milliseconds(20)
        storeConfiguration.connection.maximumBackoff = .milliseconds(200)
        let store = RedisSecondLevelStore(configuration: storeConfiguration)
        var replication: ReplicationConfiguration?
        if replicating {
            var bus = try RedisReplicationConfiguration(url: url)
            bus.channel = "ucache-test:l2front:\(unique)"
            bus.commandTimeout = .milliseconds(TestTiming.milliseconds(1_000))
            bus.pingInterval = .milliseconds(250)
            bus.initialBackoff = .milliseconds(20)
            bus.maximumBackoff = .milliseconds(200)
            replication = ReplicationConfiguration(
                transport: RedisReplicationTransport(configuration: bus),
                secret: try ReplicationSecret(Array(Self.secret.utf8)),
                clock: replicationClock ?? SystemCacheClock())
        }
        var configuration = CacheHub.Configuration(
            restBaseURL: tenant.baseURL,
            graphQLEndpoint: tenant.graphqlURL,
            maintenance: .init(interval: nil),
            replication: replication,
            secondLevel: SecondLevelConfiguration(
                store: store,
                secret: try secret ?? SecondLevelSecret(Array(Self.secret.utf8)),
                readDeadline: deadline, observer: observer, circuitBreaker: circuitBreaker)
        ).withBankingPresets()
        configuration.instrumentation = instrumentation
        return (try CacheHub(configuration: configuration, settings: settings, clock: clock), store)
    }

    func session(_ hub: CacheHub, _ user: FixtureTenant.User, id: String? = nil) -> CacheSession {
        hub.session(
            id: id ?? "session-\(user.rawValue)", principal: VerifiedPrincipal(user.rawValue),
            credentials: .bearer(user.token))
    }

    func counters() async throws -> FixtureCounters { try await tenant.counters() }

    /// Waits until `hub`'s store has answered `count` writes in all (stored or dropped).
    func waitForWrites(_ hub: CacheHub, _ count: Int) async throws {
        try await waitUntil {
            let store = hub.secondLevelStatistics?.store
            return (store?.writes ?? 0) + (store?.droppedWrites ?? 0) >= count
        }
    }

    func shutdown() async {
        await a.shutdown()
        await b.shutdown()
    }
}

/// A cached GET of a fixture route under a key of the caller's choosing (timeout 600 s unless given).
struct SecondLevelGET: RequestType {
    typealias Response = AnyJSON
    var path: String
    var key: String
    var queryItems: [QueryItem] = []
    var timeout: Timeout = .seconds(600)
    var domains: Set<String> = []
    var accounts: Set<String> = []
    var isShared = false
    var policy: RESTCachePolicy = .cacheFirst
    var resilience: CacheResilience?
    var cachePolicy: RESTCachePolicy { policy }
    var cache: RequestCache? {
        RequestCache(key: key, timeout: timeout, domains: domains, accountIds: accounts, isShared: isShared)
    }
}

extension CacheSession {
    /// Where the answer came from; fails the test on an error.
    func source(of request: SecondLevelGET) async throws -> DataWithSource<AnyJSON> {
        try await rest.performWithSource(with: request).get()
    }
}

/// `POST /api/payees`: a mutation whose own path invalidates the payee list.
struct AddPayee: RequestType {
    struct Body: Encodable, Sendable {
        var name = "New"
        var bsb = "000-000"
        var accountNumber = "1"
    }
    typealias Response = AnyJSON
    var method: CurlHTTPClient.Method { .post }
    var path: String { "/api/payees" }
    var body: Body? = Body()
}

extension SecondLevelHarness {
    /// Waits until `hub` has applied `count` clears of the other replica.
    func waitUntilApplied(_ hub: CacheHub, _ count: Int) async throws {
        try await waitUntil { (hub.replicationStatistics?.applied ?? 0) >= count }
    }
}
