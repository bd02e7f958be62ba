/// Where the fleet's shared second level lives in Redis and how much it may queue, keep and wait.
///
/// The connection (host, port, AUTH, connect and command timeouts, health-check interval, reconnection backoff) is
/// a ``RedisReplicationConfiguration``, parsed from the same `redis://` URL; its channel and outbox limit are not
/// used by the second level. Each read's deadline is not here: the caches pass it with every read.
public struct RedisSecondLevelConfiguration: Sendable, CustomStringConvertible {
    /// Host, port, credentials, timeouts and backoff of the connection. When replies stop coming for longer than
    /// its ``RedisReplicationConfiguration/commandTimeout`` (a paused or overloaded server), the connection is
    /// dropped and made again with backoff.
    public var connection: RedisReplicationConfiguration
    /// How long a clear call waits for Redis to apply it before returning with the clear still queued (it is retried
    /// after a reconnection until applied). Default: 250 ms.
    public var clearDeadline: Duration
    /// Writes queued or sent but not yet answered; a write beyond it is dropped and counted. Default: 10 000.
    public var writeQueueLimit: Int
    /// Clears not yet applied; beyond it the unsent clears collapse into one fleet-wide clear (``RedisSecondLevelStore/clearAll()``),
    /// which removes at least what each of them would have. Default: 1 000.
    public var clearQueueLimit: Int
    /// The largest value stored; a larger one is not written (and is counted as dropped). Default: 256 KiB.
    public var maxValueBytes: Int
    /// The longest time-to-live of any key: caps every value's and tag index's, and is how long a namespace's
    /// generation outlives its last clear. Default: 24 h.
    public var maxTimeToLive: Duration
    /// The prefix of every key the store touches, so a fleet can share a Redis with other users. Default:
    /// `ucache:l2:`.
    public var keyPrefix: String
    /// On a primary with replicas, how many times a clear step is sent again while no replica confirms it (`WAIT`,
    /// at most 100 ms each) before it is settled unconfirmed: more protects a clear against a primary that dies
    /// while its replica is behind, fewer bounds how long a dead replica stalls its shard's reads. Default: 10
    /// (about a second).
    public var replicaConfirmationAttempts: Int = 10
    /// How long a read made while the store is idle (one server, nothing in flight) waits for its reply on the
    /// caller's own thread, as a blocking client would, before handing it to the store's thread and suspending.
    /// Waiting there spares two thread wake-ups per read (about a bare round trip's cost on a small machine); the
    /// price is a cooperative thread held for at most this long, and only while the store has nothing else to do.
    /// `.zero` never waits there. Default: 500 µs.
    public var callerWait: Duration = .microseconds(500)

    /// A configuration with every field given or defaulted (see each field).
    public init(
        connection: RedisReplicationConfiguration = RedisReplicationConfiguration(),
        clearDeadline: Duration = .milliseconds(250),
        writeQueueLimit: Int = 10_000,
        clearQueueLimit: Int = 1_000,
        maxValueBytes: Int = 256 * 1024,
        maxTimeToLive: Duration = .seconds(24 * 60 * 60),
        keyPrefix: String = "ucache:l2:"
    ) {
        self.connection = connection
        self.clearDeadline = clearDeadline
        self.writeQueueLimit = writeQueueLimit
        self.clearQueueLimit = clearQueueLimit
        self.maxValueBytes = maxValueBytes
        self.maxTimeToLive = maxTimeToLive
        self.keyPrefix = keyPrefix
    }

    /// The defaults, connecting to `redis://[user[:password]@]host[:port]`.
    ///
    /// - Throws: as `RedisReplicationConfiguration.init(url:allowsUnauthenticated:)`: `.invalidURL`, or
    ///   `.missingCredentials` for a URL without a password (unless allowed); the message never repeats the URL.
    public init(url: String, allowsUnauthenticated: Bool = false) throws(RedisReplicationError) {
        self.init(
            connection: try RedisReplicationConfiguration(url: url, allowsUnauthenticated: allowsUnauthenticated))
    }

    /// Host, port, user and key prefix; the password is shown as `***`.
    public var description: String {
        let user = connection.username.map { "\($0)@" } ?? (connection.password == nil ? "" : "***@")
        let scheme = connection.tls == nil ? "redis" : "rediss"
        return "\(scheme)://\(user)\(connection.host):\(connection.port) prefix \(keyPrefix)"
    }
}

extension RedisSecondLevelConfiguration: CustomReflectable {
    /// No children: `dump()` and reflection-based loggers see nothing of the connection's password.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
