import RedisReplication
import UnifiedCache

/// The keys the configuration readers take, relative to the reader the app passes. Each is the environment variable
/// the library's environment readers take, spelled as swift-configuration spells keys: under a reader scoped to
/// `ucache`, `EnvironmentVariablesProvider` reads `redis.allowNoAuth` from `UCACHE_REDIS_ALLOW_NO_AUTH`, the same
/// variable `RedisReplicationConfiguration(environment:)` reads.
public enum CacheConfigurationKey: String, CaseIterable, Sendable {
    /// The REST upstream's root (`UCACHE_UPSTREAM_URL`). Required by `CacheHub.Configuration(config:)`.
    case upstreamURL = "upstream.url"
    /// The GraphQL endpoint (`UCACHE_GRAPHQL_URL`). Default: the upstream's root followed by `/graphql`.
    case graphQLURL = "graphql.url"
    /// The Redis of the fleet, `redis[s]://[user[:password]@]host[:port]` (`UCACHE_REDIS_URL`); read as a secret,
    /// since it may hold the password. Set, it turns on replication and the shared second level.
    case redisURL = "redis.url"
    /// The replication channel (`UCACHE_REDIS_CHANNEL`).
    case redisChannel = "redis.channel"
    /// `1` lets a URL without a password connect without AUTH (`UCACHE_REDIS_ALLOW_NO_AUTH`).
    case redisAllowNoAuth = "redis.allowNoAuth"
    /// `1`: the URL's host is a Redis Cluster seed (`UCACHE_REDIS_CLUSTER`).
    case redisCluster = "redis.cluster"
    /// The CA file a `rediss://` server is verified against (`UCACHE_REDIS_TLS_CA_FILE`).
    case redisTLSCAFile = "redis.tls.caFile"
    /// The CA directory a `rediss://` server is verified against (`UCACHE_REDIS_TLS_CA_DIRECTORY`).
    case redisTLSCADirectory = "redis.tls.caDirectory"
    /// The client certificate for mutual TLS (`UCACHE_REDIS_TLS_CERT_FILE`).
    case redisTLSCertificateFile = "redis.tls.certFile"
    /// The client certificate's key for mutual TLS (`UCACHE_REDIS_TLS_KEY_FILE`).
    case redisTLSKeyFile = "redis.tls.keyFile"
    /// The name the server's certificate is checked for (`UCACHE_REDIS_TLS_SERVER_NAME`).
    case redisTLSServerName = "redis.tls.serverName"
    /// The fleet secret sealing replicated clears (`UCACHE_REPLICATION_SECRET`); a secret.
    case replicationSecret = "replication.secret"
    /// The second level's own sealing secret (`UCACHE_L2_SECRET`), else the fleet secret; a secret.
    case secondLevelSecret = "l2.secret"
    /// The JSON settings file (`UCACHE_SETTINGS`).
    case settingsFile = "settings"
    /// `CacheSettings.defaultTimeout`: seconds or `never` (`UCACHE_DEFAULT_TIMEOUT`).
    case defaultTimeout = "defaultTimeout"
    /// `CacheSettings.isTimeoutEnabled` (`UCACHE_TIMEOUTS_ENABLED`).
    case timeoutsEnabled = "timeoutsEnabled"
    /// The process's memory budget in bytes (`UCACHE_MEMORY_LIMIT_BYTES`).
    case memoryLimitBytes = "memoryLimitBytes"
    /// The most entries per session (`UCACHE_SESSION_MAX_ENTRIES`).
    case sessionMaxEntries = "sessionMaxEntries"
    /// The most bytes per session (`UCACHE_SESSION_MAX_BYTES`).
    case sessionMaxBytes = "sessionMaxBytes"
    /// Seconds a session may stay idle before it ends (`UCACHE_SESSION_IDLE_TIMEOUT`).
    case sessionIdleTimeout = "sessionIdleTimeout"
    /// The most sessions at once (`UCACHE_MAX_SESSIONS`).
    case maxSessions = "maxSessions"
    /// Whether a settings change clears the domains it touches (`UCACHE_CLEAR_ON_SETTINGS_CHANGE`).
    case clearOnSettingsChange = "clearOnSettingsChange"

    /// Whether the value is read as a secret: redacted by the reader's access reporters, never in an error.
    public var isSecret: Bool {
        switch self {
        case .redisURL, .replicationSecret, .secondLevelSecret: return true
        default: return false
        }
    }

    /// The environment variable of the library's environment readers that the key stands for.
    public var environmentVariable: String {
        switch self {
        case .upstreamURL: return "UCACHE_UPSTREAM_URL"
        case .graphQLURL: return "UCACHE_GRAPHQL_URL"
        case .redisURL: return RedisReplicationConfiguration.urlEnvironmentVariable
        case .redisChannel: return RedisReplicationConfiguration.channelEnvironmentVariable
        case .redisAllowNoAuth: return RedisReplicationConfiguration.allowNoAuthEnvironmentVariable
        case .redisCluster: return RedisTopology.clusterEnvironmentVariable
        case .redisTLSCAFile: return RedisReplicationConfiguration.TLS.caFileEnvironmentVariable
        case .redisTLSCADirectory: return RedisReplicationConfiguration.TLS.caDirectoryEnvironmentVariable
        case .redisTLSCertificateFile: return RedisReplicationConfiguration.TLS.certificateFileEnvironmentVariable
        case .redisTLSKeyFile: return RedisReplicationConfiguration.TLS.keyFileEnvironmentVariable
        case .redisTLSServerName: return RedisReplicationConfiguration.TLS.serverNameEnvironmentVariable
        case .replicationSecret: return ReplicationSecret.environmentVariable
        case .secondLevelSecret: return SecondLevelSecret.environmentVariable
        case .settingsFile: return SettingsEnvironmentVariable.settingsFile.rawValue
        case .defaultTimeout: return SettingsEnvironmentVariable.defaultTimeout.rawValue
        case .timeoutsEnabled: return SettingsEnvironmentVariable.timeoutsEnabled.rawValue
        case .memoryLimitBytes: return SettingsEnvironmentVariable.memoryLimitBytes.rawValue
        case .sessionMaxEntries: return SettingsEnvironmentVariable.sessionMaxEntries.rawValue
        case .sessionMaxBytes: return SettingsEnvironmentVariable.sessionMaxBytes.rawValue
        case .sessionIdleTimeout: return SettingsEnvironmentVariable.sessionIdleTimeout.rawValue
        case .maxSessions: return SettingsEnvironmentVariable.maxSessions.rawValue
        case .clearOnSettingsChange: return SettingsEnvironmentVariable.clearOnSettingsChange.rawValue
        }
    }

    /// The keys of the hub's configuration (the upstream and the fleet).
    static let hub: [CacheConfigurationKey] = [
        .upstreamURL, .graphQLURL, .redisURL, .redisChannel, .redisAllowNoAuth, .redisCluster, .redisTLSCAFile,
        .redisTLSCADirectory, .redisTLSCertificateFile, .redisTLSKeyFile, .redisTLSServerName, .replicationSecret,
        .secondLevelSecret,
    ]

    /// The keys of the settings (the file and its overrides).
    static let settings: [CacheConfigurationKey] = [
        .settingsFile, .defaultTimeout, .timeoutsEnabled, .memoryLimitBytes, .sessionMaxEntries, .sessionMaxBytes,
        .sessionIdleTimeout, .maxSessions, .clearOnSettingsChange,
    ]

    /// The prefix of the per-domain policy keys: `domain.<name>` (`UCACHE_DOMAIN_<NAME>`).
    public static let domainPolicyPrefix = "domain"
}
