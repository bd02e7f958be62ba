extension RedisSecondLevelConfiguration {
    /// The defaults, connecting as `RedisReplicationConfiguration.init(environment:)` reads it: `UCACHE_REDIS_URL`
    /// (`redis://` or `rediss://`), `UCACHE_REDIS_ALLOW_NO_AUTH` and the `UCACHE_REDIS_TLS_*` variables; nil when no
    /// URL is set.
    ///
    /// - Throws: as `RedisReplicationConfiguration.init(environment:)`; messages never repeat the URL.
    public init?(environment: [String: String]) throws(RedisReplicationError) {
        guard let connection = try RedisReplicationConfiguration(environment: environment) else { return nil }
        self.init(connection: connection)
    }
}
