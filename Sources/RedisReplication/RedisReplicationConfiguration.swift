/// Where the fleet's Redis is and how the replication link behaves when it is slow or gone.
public struct RedisReplicationConfiguration: Sendable, CustomStringConvertible {
    /// The environment variable ``init(environment:)`` reads: `redis://[user[:password]@]host[:port]`.
    public static let urlEnvironmentVariable = "UCACHE_REDIS_URL"
    /// The environment variable naming the channel (default `ucache:clears`).
    public static let channelEnvironmentVariable = "UCACHE_REDIS_CHANNEL"

    /// The Redis host name or address. Default: `127.0.0.1`.
    public var host: String
    /// The Redis TCP port. Default: 6379.
    public var port: Int
    /// The ACL user for AUTH (Redis 6+); nil authenticates as the default user when a password is set.
    public var username: String?
    /// The AUTH password; nil sends no AUTH. Never printed.
    public var password: String?
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

    /// A configuration with every field given or defaulted (see each field).
    public init(
        host: String = "127.0.0.1",
        port: Int = 6379,
        username: String? = nil,
        password: String? = nil,
        channel: String = "ucache:clears",
        connectTimeout: Duration = .milliseconds(500),
        commandTimeout: Duration = .seconds(1),
        pingInterval: Duration = .milliseconds(250),
        initialBackoff: Duration = .milliseconds(50),
        maximumBackoff: Duration = .seconds(2),
        outboxLimit: Int = 10_000
    ) {
        self.host = host
        self.port = port
        self.username = username
        self.password = password
        self.channel = channel
        self.connectTimeout = connectTimeout
        self.commandTimeout = commandTimeout
        self.pingInterval = pingInterval
        self.initialBackoff = initialBackoff
        self.maximumBackoff = maximumBackoff
        self.outboxLimit = outboxLimit
    }

    /// Parses `redis://[user[:password]@]host[:port]` (percent-escapes in user and password are decoded).
    ///
    /// - Throws: `.invalidURL`; the message never repeats the URL, which may hold the password.
    public init(url: String) throws(RedisReplicationError) {
        self.init()
        guard url.hasPrefix("redis://") else {
            throw RedisReplicationError(.invalidURL, "A Redis URL must start with redis://.")
        }
        var rest = Substring(url.dropFirst("redis://".count))
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
        if let colon = rest.lastIndex(of: ":") {
            guard let parsed = Int(rest[rest.index(after: colon)...]), (1...65535).contains(parsed) else {
                throw RedisReplicationError(.invalidURL, "The Redis URL's port is not a number in 1…65535.")
            }
            port = parsed
            rest = rest[..<colon]
        }
        guard !rest.isEmpty else { throw RedisReplicationError(.invalidURL, "The Redis URL names no host.") }
        host = String(rest)
    }

    /// The configuration from `UCACHE_REDIS_URL` and `UCACHE_REDIS_CHANNEL`; nil when no URL is set.
    public init?(environment: [String: String]) throws(RedisReplicationError) {
        guard let url = environment[Self.urlEnvironmentVariable], !url.isEmpty else { return nil }
        try self.init(url: url)
        if let channel = environment[Self.channelEnvironmentVariable], !channel.isEmpty { self.channel = channel }
    }

    /// Host, port, user and channel; the password is shown as `***`.
    public var description: String {
        let user = username.map { "\($0)@" } ?? (password == nil ? "" : "***@")
        return "redis://\(user)\(host):\(port) channel \(channel)"
    }
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
