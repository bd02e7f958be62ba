/// Where the fleet's Redis is and how the replication link behaves when it is slow or gone.
///
/// AUTH is explicit: a configuration without a password connects only when ``allowsUnauthenticated`` says so (a
/// Redis that anyone on the network can publish to is a Redis anyone can send the fleet's channel garbage through),
/// and a user name without a password is refused.
public struct RedisReplicationConfiguration: Sendable, CustomStringConvertible {
    /// The environment variable ``init(environment:)`` reads: `redis[s]://[user[:password]@]host[:port]`.
    public static let urlEnvironmentVariable = "UCACHE_REDIS_URL"
    /// The environment variable naming the channel (default `ucache:clears`).
    public static let channelEnvironmentVariable = "UCACHE_REDIS_CHANNEL"
    /// The environment variable that, set to `1`, lets a URL without a password connect without AUTH.
    public static let allowNoAuthEnvironmentVariable = "UCACHE_REDIS_ALLOW_NO_AUTH"

    /// The Redis host name or address. Default: `127.0.0.1`.
    public var host: String
    /// The Redis TCP port. Default: 6379.
    public var port: Int
    /// The ACL user for AUTH (Redis 6+); nil authenticates as the default user when a password is set.
    public var username: String?
    /// The AUTH password; nil sends no AUTH, which is refused unless ``allowsUnauthenticated``. Never printed.
    public var password: String?
    /// Lets a configuration without a password connect without AUTH (a Redis on a private network with no
    /// `requirepass`). Default: false, so a URL that lost its password fails loudly instead of connecting open.
    public var allowsUnauthenticated: Bool
    /// The pub/sub channel every replica of one fleet shares. Default: `ucache:clears`.
    public var channel: String
    /// How long a TCP connect may take. Default: 500 ms.
    public var connectTimeout: Duration
    /// How long Redis may take to answer AUTH, SUBSCRIBE, a PUBLISH or a health-check PING before the link counts
    /// as lost (a paused or overloaded server). Default: 1 s.
    public var commandTimeout: Duration
    /// How often an idle link is checked with PING. Default: 250 ms.
    public var pingInterval: Duration
    /// The first wait before reconnecting; doubled after each failure up to ``maximumBackoff``. Default: 50 ms.
    public var initialBackoff: Duration
    /// The longest wait between reconnection attempts. Default: 2 s.
    public var maximumBackoff: Duration
    /// Outgoing messages kept while Redis is unreachable; beyond it they are replaced by one request that every
    /// replica drop its local entries. Default: 10 000.
    public var outboxLimit: Int
    /// TLS for the connection; nil is plaintext TCP. A `rediss://` URL sets it (verification on). Default: nil.
    public var tls: TLS?
    /// One server, or a Redis Cluster's seed nodes (a URL listing several hosts, or `UCACHE_REDIS_CLUSTER=1`).
    /// Default: ``RedisTopology/standalone``.
    public var topology: RedisTopology = .standalone

    /// A configuration with every field given or defaulted (see each field).
    public init(
        host: String = "127.0.0.1",
        port: Int = 6379,
        username: String? = nil,
        password: String? = nil,
        allowsUnauthenticated: Bool = false,
        channel: String = "ucache:clears",
        connectTimeout: Duration = .milliseconds(500),
        commandTimeout: Duration = .seconds(1),
        pingInterval: Duration = .milliseconds(250),
        initialBackoff: Duration = .milliseconds(50),
        maximumBackoff: Duration = .seconds(2),
        outboxLimit: Int = 10_000,
        tls: TLS? = nil
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.allowsUnauthenticated = allowsUnauthenticated
        self.channel = channel
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        self.pingInterval = pingInterval
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.outboxLimit = outboxLimit
        self.tls = tls
    }

    /// Parses `redis://[user[:password]@]host[:port][,host:port…]` (several hosts: the seeds of a Redis Cluster;
    /// percent-escapes in user and password are decoded); `rediss://` is the same over TLS (``tls`` set: TLS 1.2+,
    /// certificate and host name verified against the system's trust store unless a CA is configured).
    ///
    /// - Parameters:
    ///   - url: `redis[s]://[user]:password@host[:port]`.
    ///   - allowsUnauthenticated: lets a URL without a password connect without AUTH (see
    ///     ``allowsUnauthenticated``).
    /// - Throws: `.invalidURL` for a malformed URL, `.missingCredentials` for one without a password (unless
    ///   allowed) or with a user name but no password; the message never repeats the URL, which may hold the
    ///   password.
    public init(url: String, allowsUnauthenticated: Bool = false) throws(RedisReplicationError) {
        self.init(allowsUnauthenticated: allowsUnauthenticated)
        let scheme: String
        if url.hasPrefix("redis://") {
            scheme = "redis://"
        } else if url.hasPrefix("rediss://") {
            scheme = "rediss://"
            tls = TLS()
        } else {
            throw RedisReplicationError(.invalidURL, "A Redis URL must start with redis:// or rediss:// (TLS).")
        }
        var rest = Substring(url.dropFirst(scheme.count))
        if let slash = rest.firstIndex(of: "/") { rest = rest[..<slash] }
        if let at = rest.lastIndex(of: "@") {
            let credentials = rest[..<at]
            rest = rest[rest.index(after: at)...]
            if let colon = credentials.firstIndex(of: ":") {
                let user = String(credentials[..<colon]).removingPercentEncodingSafely
                username = user.isEmpty ? nil : user
                password = String(credentials[credentials.index(after: colon)...]).removingPercentEncodingSafely
            } else if !credentials.isEmpty {
                username = String(credentials).removingPercentEncodingSafely
            }
        }
        let nodes = try Self.nodes(in: rest)
        host = nodes[0].host
        port = nodes[0].port
        if nodes.count > 1 { topology = .cluster(seeds: nodes) }
        try checkCredentials()
    }

    /// Throws unless the configuration authenticates, or explicitly allows connecting without AUTH.
    ///
    /// - Throws: `.missingCredentials` for a user name without a password, or no password without
    ///   ``allowsUnauthenticated``. The message never holds the URL.
    public func checkCredentials() throws(RedisReplicationError) {
        if username != nil, password == nil {
            throw RedisReplicationError(
                .missingCredentials,
                "The Redis configuration names a user but no password: write redis://user:password@host:port "
                    + "(a user name alone is never sent).")
        }
        if password == nil, !allowsUnauthenticated {
            throw RedisReplicationError(
                .missingCredentials,
                "The Redis configuration has no password, so it would connect without AUTH: put the password in "
                    + "the URL (redis://:password@host:port or redis://user:password@host:port), or allow an "
                    + "unauthenticated Redis explicitly (allowsUnauthenticated, \(Self.allowNoAuthEnvironmentVariable)=1)."
            )
        }
    }

    /// The configuration from `UCACHE_REDIS_URL`, `UCACHE_REDIS_CHANNEL` and `UCACHE_REDIS_ALLOW_NO_AUTH`, and for
    /// a `rediss://` URL the `UCACHE_REDIS_TLS_*` variables (``TLS``); nil when no URL is set.
    ///
    /// - Throws: as ``init(url:allowsUnauthenticated:)``, `.invalidURL` when `UCACHE_REDIS_ALLOW_NO_AUTH` is set
    ///   to anything but `0` or `1` or when a `UCACHE_REDIS_TLS_*` variable is set for a plaintext `redis://` URL
    ///   (it would silently not apply), `.tlsConfigurationInvalid` for a certificate without a key or the reverse.
    public init?(environment: [String: String]) throws(RedisReplicationError) {
        guard let url = environment[Self.urlEnvironmentVariable], !url.isEmpty else { return nil }
        let allowed: Bool
        switch environment[Self.allowNoAuthEnvironmentVariable] ?? "" {
        case "", "0": allowed = false
        case "1": allowed = true
        default:
            throw RedisReplicationError(
                .invalidURL, "\(Self.allowNoAuthEnvironmentVariable) must be 0 or 1.")
        }
        try self.init(url: url, allowsUnauthenticated: allowed)
        if let channel = environment[Self.channelEnvironmentVariable], !channel.isEmpty { self.channel = channel }
        var settings = tls ?? TLS()
        if settings.apply(environment: environment) {
            guard tls != nil else {
                throw RedisReplicationError(
                    .invalidURL, "UCACHE_REDIS_TLS_* is set but the Redis URL is redis://: use rediss:// for TLS.")
            }
            try settings.check()
            tls = settings
        }
        try applyClusterEnvironment(environment)
    }

    /// Host, port, user and channel; the password is shown as `***`.
    public var description: String {
        let user = username.map { "\($0)@" } ?? (password == nil ? "" : "***@")
        return "\(tls == nil ? "redis" : "rediss")://\(user)\(host):\(port) channel \(channel)"
    }
}

extension RedisReplicationConfiguration: CustomReflectable {
    /// No children: `dump()` and reflection-based loggers see nothing of the password.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

extension String {
    /// Decodes `%XX` escapes; leaves malformed ones as written.
    fileprivate var removingPercentEncodingSafely: String {
        var bytes: [UInt8] = []
        var iterator = Array(utf8)[...]
        while let byte = iterator.popFirst() {
            if byte == UInt8(ascii: "%"), iterator.count >= 2,
                let value = UInt8(String(decoding: iterator.prefix(2), as: UTF8.self), radix: 16)
            {
                bytes.append(value)
                iterator = iterator.dropFirst(2)
            } else {
                bytes.append(byte)
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
