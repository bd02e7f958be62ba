import RedisReplication
import UnifiedCache

/// The hub's configuration: the bank upstream with the bank's presets (entity links, account-learning paths) and,
/// when `UCACHE_REDIS_URL` is set, the fleet: every clear (logout, payment, …) is replicated to the other replicas
/// over Redis pub/sub, and a shared second level in the same Redis serves what any replica fetched.
///
/// A fleet reads `UCACHE_REDIS_URL`, `UCACHE_REPLICATION_SECRET` (the fleet secret), optionally `UCACHE_L2_SECRET`
/// and `UCACHE_REDIS_CHANNEL`. Without `UCACHE_REDIS_URL` the replica runs alone.
func hubConfiguration(upstream: String, environment: [String: String]) throws -> CacheHub.Configuration {
    var configuration = CacheHub.Configuration(restBaseURL: upstream, graphQLEndpoint: upstream + "/graphql")
        .withBankingPresets()
    guard let redis = try RedisReplicationConfiguration(environment: environment) else {
        return configuration  // a single replica
    }
    // A fleet without its secret would serve stale data after a logout elsewhere: refuse to start.
    guard let secret = try ReplicationSecret(environment: environment),
        let secondLevelSecret = try SecondLevelSecret(environment: environment)  // UCACHE_L2_SECRET, else the above
    else {
        throw BFFConfiguration.Invalid(
            description: "UCACHE_REDIS_URL is set: set UCACHE_REPLICATION_SECRET too (the fleet secret)")
    }
    configuration.replication = ReplicationConfiguration(
        transport: RedisReplicationTransport(configuration: redis), secret: secret)
    configuration.secondLevel = SecondLevelConfiguration(
        store: RedisSecondLevelStore(configuration: RedisSecondLevelConfiguration(connection: redis)),
        secret: secondLevelSecret)
    return configuration
}
