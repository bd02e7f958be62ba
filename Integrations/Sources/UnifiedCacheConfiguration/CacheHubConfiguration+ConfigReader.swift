import Configuration
import RedisReplication
import UnifiedCache

extension CacheHub.Configuration {
    /// The hub's configuration from swift-configuration: any provider the app uses (environment variables, a JSON
    /// file, command-line arguments, an in-memory table), reading the keys of ``CacheConfigurationKey`` relative to
    /// `config`.
    ///
    /// Scoped to `ucache` over `EnvironmentVariablesProvider`, it reads the very variables the library's
    /// environment readers read (`UCACHE_UPSTREAM_URL`, `UCACHE_REDIS_URL`, `UCACHE_REPLICATION_SECRET`, …):
    ///
    /// ```swift
    /// let config = ConfigReader(provider: EnvironmentVariablesProvider()).scoped(to: "ucache")
    /// let hub = try CacheHub(configuration: CacheHub.Configuration(config: config), settings: SettingsStore(config: config))
    /// ```
    ///
    /// With a Redis URL the hub joins a fleet as the library's fleet article wires it: replicated clears over Redis
    /// pub/sub, sealed with the fleet secret, and a shared second level in the same Redis (sealed with the
    /// second-level secret, else the fleet secret). The Redis URL and the secrets are read as secrets: a provider's
    /// access logging redacts them, and no error repeats them. The rest keeps the defaults of
    /// `CacheHub.Configuration(restBaseURL:graphQLEndpoint:)` (neutral: no domain presets); set the other fields on
    /// the result.
    ///
    /// - Throws: ``CacheConfigurationError`` naming the key: `.missingValue` without `upstream.url`,
    ///   `.invalidValue` for a malformed URL or secret, `.inconsistent` for a Redis URL without a fleet secret or
    ///   TLS settings for a plaintext URL.
    public init(config: ConfigReader) throws(CacheConfigurationError) {
        let environment = config.cacheEnvironment(CacheConfigurationKey.hub)
        guard let upstream = environment[CacheConfigurationKey.upstreamURL.environmentVariable], !upstream.isEmpty
        else {
            throw CacheConfigurationError(
                code: .missingValue, key: CacheConfigurationKey.upstreamURL.rawValue,
                message: "the REST upstream's root URL is required")
        }
        let root = upstream.hasSuffix("/") ? String(upstream.dropLast()) : upstream
        let graphQL = environment[CacheConfigurationKey.graphQLURL.environmentVariable].flatMap {
            $0.isEmpty ? nil : $0
        }
        self.init(restBaseURL: root, graphQLEndpoint: graphQL ?? root + "/graphql")
        let redis: RedisReplicationConfiguration
        do throws(RedisReplicationError) {
            guard let configured = try RedisReplicationConfiguration(environment: environment) else { return }
            redis = configured
        } catch {
            throw CacheConfigurationError(redis: error, environment: environment)
        }
        let secrets: (ReplicationSecret, SecondLevelSecret)?
        do throws(UnifiedCacheError) {
            // The second level's secret falls back to the fleet secret, so both are there or neither is.
            if let fleet = try ReplicationSecret(environment: environment),
                let secondLevel = try SecondLevelSecret(environment: environment)
            {
                secrets = (fleet, secondLevel)
            } else {
                secrets = nil
            }
        } catch {
            throw CacheConfigurationError(library: error, environment: environment)
        }
        guard let secrets else {
            throw CacheConfigurationError(
                code: .inconsistent, key: CacheConfigurationKey.replicationSecret.rawValue,
                message: "redis.url is set: the fleet secret is required (at least 32 random bytes)")
        }
        replication = ReplicationConfiguration(
            transport: RedisReplicationTransport(configuration: redis), secret: secrets.0)
        secondLevel = SecondLevelConfiguration(
            store: RedisSecondLevelStore(configuration: RedisSecondLevelConfiguration(connection: redis)),
            secret: secrets.1)
    }
}
