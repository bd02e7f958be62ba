import CacheCore
import FixtureSupport
import Foundation
import GraphQLCache
import RESTCache
import RedisReplication
import UnifiedCache

/// Two (or more) hubs in one process over one fixture tenant, replicating through a real Redis on a channel of their
/// own: the replicas of one BFF fleet.
struct ReplicaHarness {
    static let secret = "fleet-secret-for-tests-0123456789"
    let tenant: FixtureTenant
    let redisURL: String
    let channel: String
    let a: CacheHub
    let b: CacheHub

    init(_ label: String, redisURL: String? = nil, settings: (@Sendable () throws -> SettingsStore)? = nil)
        async throws
    {
        tenant = try await FixtureServer.tenant(label)
        var url = redisURL ?? ""
        if url.isEmpty { url = try await RedisTestServer.sharedURL() }
        self.redisURL = url
        channel = uniqueChannel(label)
        a = try Self.hub(
            tenant: tenant, redisURL: url, channel: channel, settings: settings?() ?? SettingsStore(settings: .banking))
        b = try Self.hub(
            tenant: tenant, redisURL: url, channel: channel, settings: settings?() ?? SettingsStore(settings: .banking))
        try await Self.waitUntilReady(a)
        try await Self.waitUntilReady(b)
    }

    static func hub(
        tenant: FixtureTenant, redisURL: String, channel: String, settings: SettingsStore,
        secret: String = ReplicaHarness.secret, keys: [String]? = nil,
        observer: (@Sendable (ReplicationEvent) -> Void)? = nil,
        adjust: (inout ReplicationConfiguration) -> Void = { _ in }
    ) throws -> CacheHub {
        let transport = RedisReplicationTransport(
            configuration: try redisConfiguration(url: redisURL, channel: channel))
        var replication = ReplicationConfiguration(
            transport: transport, secret: try ReplicationSecret(keys: (keys ?? [secret]).map { Array($0.utf8) }),
            observer: observer)
        adjust(&replication)
        return try CacheHub(
            configuration: .init(
                restBaseURL: tenant.baseURL,
                graphQLEndpoint: tenant.graphqlURL,
                replication: replication
            ).withBankingPresets(),
            settings: settings,
            clock: ManualCacheClock()
        )
    }

    /// Subscribed, and the drop that follows the first subscription done (so what a test caches next stays).
    static func waitUntilReadyCount(_ hub: CacheHub, gaps: Int) async throws {
        try await waitUntil {
            let statistics = hub.replicationStatistics
            return statistics?.linkState == .subscribed && (statistics?.gapsRecovered ?? 0) >= gaps
        }
    }

    static func waitUntilReady(_ hub: CacheHub) async throws {
        try await waitUntilReadyCount(hub, gaps: 1)
    }

    func session(_ hub: CacheHub, _ user: FixtureTenant.User) throws -> CacheSession {
        hub.session(
            id: "session-\(user.rawValue)", principal: VerifiedPrincipal(user.rawValue),
            credentials: .bearer(user.token))
    }

    /// Waits until `hub` has applied `count` clears of other replicas in total.
    func waitUntilApplied(_ hub: CacheHub, _ count: Int) async throws {
        try await waitUntil { (hub.replicationStatistics?.applied ?? 0) >= count }
    }

    func shutdown() async {
        await a.shutdown()
        await b.shutdown()
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
    var accounts: Set<String> = []
    var cache: RequestCache? { RequestCache(key: key, timeout: .seconds(600), accountIds: accounts) }
}

extension CacheSession {
    /// Where the answer came from: `.cache` when the entry is (still) there.
    func source(of request: CachedGET) async throws -> ResponseSource {
        try await rest.performWithSource(with: request).get().source
    }
}

extension Result {
    var isSuccess: Bool {
        if case .success = self { return true }
        return false
    }
}
