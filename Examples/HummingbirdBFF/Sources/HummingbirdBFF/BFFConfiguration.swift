import Foundation
import RedisReplication
import UnifiedCache

/// What the BFF reads from its environment at start-up.
///
/// - `UCACHE_FIXTURE_URL` (or `UPSTREAM_URL`): the bank upstream, REST under `/api/`, GraphQL at `/graphql`.
/// - `PORT` (default 8080) and `HOST` (default 127.0.0.1): where the BFF listens.
/// - `BFF_CACHE=off`: every read bypasses the cache (REST `.networkOnly`, GraphQL `.fetchIgnoringCacheCompletely`),
///   the baseline `scripts/bench-bff.sh` compares against.
/// - `BFF_EXECUTOR=eventloop`: Swift tasks on NIO's event loop threads instead of the default cooperative pool
///   (`cooperative`, the default: its p99 was lower on 2 shared cores; see the README's "Tuned for a cached
///   dashboard").
/// - `UCACHE_REDIS_URL` and `UCACHE_REPLICATION_SECRET` (optionally `UCACHE_L2_SECRET`, `UCACHE_REDIS_CHANNEL`):
///   the replica joins a fleet, see ``hub(environment:)``. Without `UCACHE_REDIS_URL` it runs alone.
/// - `UCACHE_SETTINGS` and the `UCACHE_*` overrides: read by the library's `SettingsStore(environment:)`. The
///   bank's domain map is opt-in: without a file the BFF uses `CacheSettings.banking`; a file names it with
///   `"domainMap": "banking"`.
struct BFFConfiguration: Sendable {
    var upstream: String
    var host: String
    var port: Int
    var cacheEnabled: Bool
    var runsTasksOnEventLoops: Bool

    struct Invalid: Error, CustomStringConvertible {
        var description: String
    }

    init(environment: [String: String]) throws {
        guard let upstream = environment["UCACHE_FIXTURE_URL"] ?? environment["UPSTREAM_URL"], !upstream.isEmpty else {
            throw Invalid(description: "set UCACHE_FIXTURE_URL (or UPSTREAM_URL) to the bank upstream's base URL")
        }
        self.upstream = upstream.hasSuffix("/") ? String(upstream.dropLast()) : upstream
        host = environment["HOST"] ?? "127.0.0.1"
        let portText = environment["PORT"] ?? "8080"
        guard let port = Int(portText), (0...65_535).contains(port) else {
            throw Invalid(description: "PORT must be a port number, not \(portText)")
        }
        self.port = port
        switch environment["BFF_CACHE"]?.lowercased() ?? "on" {
        case "on": cacheEnabled = true
        case "off": cacheEnabled = false
        case let other: throw Invalid(description: "BFF_CACHE must be on or off, not \(other)")
        }
        switch environment["BFF_EXECUTOR"]?.lowercased() ?? "cooperative" {
        case "eventloop": runsTasksOnEventLoops = true
        case "cooperative": runsTasksOnEventLoops = false
        case let other: throw Invalid(description: "BFF_EXECUTOR must be eventloop or cooperative, not \(other)")
        }
    }
}

extension BFFConfiguration {
    /// The hub's configuration: the bank upstream with the bank's presets (entity links, account-learning paths)
    /// and, when `UCACHE_REDIS_URL` is set, the fleet, wired as the
    /// library's README shows ("Running several replicas"): every clear (logout, payment, …) is replicated to the
    /// other replicas over Redis pub/sub, and a shared second level in the same Redis serves what any replica
    /// fetched.
    func hub(environment: [String: String]) throws -> CacheHub.Configuration {
        var configuration = CacheHub.Configuration(restBaseURL: upstream, graphQLEndpoint: upstream + "/graphql")
            .withBankingPresets()
        guard let redis = try RedisReplicationConfiguration(environment: environment) else {  // UCACHE_REDIS_URL
            return configuration  // a single replica
        }
        // A fleet without its secret would serve stale data after a logout elsewhere: refuse to start.
        guard let secret = try ReplicationSecret(environment: environment),  // UCACHE_REPLICATION_SECRET
            let secondLevelSecret = try SecondLevelSecret(environment: environment)  // UCACHE_L2_SECRET, else the above
        else {
            throw Invalid(description: "UCACHE_REDIS_URL is set: set UCACHE_REPLICATION_SECRET too (the fleet secret)")
        }
        configuration.replication = ReplicationConfiguration(
            transport: RedisReplicationTransport(configuration: redis), secret: secret)
        configuration.secondLevel = SecondLevelConfiguration(
            store: RedisSecondLevelStore(configuration: RedisSecondLevelConfiguration(connection: redis)),
            secret: secondLevelSecret)
        return configuration
    }
}
