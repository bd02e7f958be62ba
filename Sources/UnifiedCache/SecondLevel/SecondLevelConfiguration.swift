import CacheCore

/// How a ``CacheHub`` uses a second level shared by every replica of the fleet (L1 miss → L2 → upstream).
///
/// Set it on ``CacheHub/Configuration/secondLevel``; nil (the default) keeps every replica to its own memory. The
/// Redis module provides the store (`RedisSecondLevelStore`). Every default is chosen for a second level on the
/// same network as the replicas.
public struct SecondLevelConfiguration: Sendable {
    /// Keeps the bytes under opaque names; shared by every replica.
    public var store: any SecondLevelStore
    /// Derives every name sent to the store (keyed hashes); the same on every replica.
    public var secret: SecondLevelSecret
    /// How long a read may take before it counts as a miss (a timeout) and the request goes upstream. Default
    /// 5 ms: a Redis round trip is ~0.1 ms on loopback and well under 1 ms in a data centre, so 5 ms leaves room
    /// for a busy moment while bounding what a stalled Redis adds to a miss far below an upstream call (tens of
    /// ms). A slower network wants more; the `ucache_l2_timeouts_total` series says when.
    public var readDeadline: Duration
    /// Whether REST answers (session and shared scopes) go to the second level. Default true.
    public var storesREST: Bool
    /// Whether GraphQL query results (cache-first queries, per session) go to the second level. Default true.
    public var storesGraphQL: Bool
    /// How long an expired entry that carries validators (`ETag`, `Last-Modified`) is kept past its expiry, so
    /// another replica can still revalidate it with a 304. Entries without validators are removed at expiry.
    /// Default 10 minutes.
    public var revalidationRetention: Duration
    /// The longest the store keeps any entry (entries that never expire included): garbage collection only,
    /// freshness is judged by the caches. Default 24 hours.
    public var maximumTimeToLive: Duration
    /// Receives what an operator should hear about once (a log line), such as a generation no replica wrote or the
    /// circuit breaker opening.
    public var observer: (@Sendable (SecondLevelEvent) -> Void)?
    /// When the second level is skipped after it kept failing, so reads stop paying ``readDeadline`` for a store
    /// known to be down or stalled; nil never skips it. Default: 5 consecutive errors or timeouts open it for 10 s.
    public var circuitBreaker: CircuitBreaker?

    public init(
        store: any SecondLevelStore,
        secret: SecondLevelSecret,
        readDeadline: Duration = .milliseconds(5),
        storesREST: Bool = true,
        storesGraphQL: Bool = true,
        revalidationRetention: Duration = .seconds(600),
        maximumTimeToLive: Duration = .seconds(86_400),
        observer: (@Sendable (SecondLevelEvent) -> Void)? = nil,
        circuitBreaker: CircuitBreaker? = CircuitBreaker()
    ) {
        self.store = store
        self.secret = secret
        self.readDeadline = readDeadline
        self.storesREST = storesREST
        self.storesGraphQL = storesGraphQL
        self.revalidationRetention = revalidationRetention
        self.maximumTimeToLive = maximumTimeToLive
        self.observer = observer
        self.circuitBreaker = circuitBreaker
    }

    /// The second level's circuit breaker: after ``failureThreshold`` consecutive reads that failed or passed their
    /// deadline, reads and writes skip the store (a read is a miss at once, a write is dropped) for ``breakDuration``
    /// on the hub's clock; then one read is tried, whose answer closes the breaker and whose failure opens it again.
    /// Each opening is counted (`ucache_l2_circuit_openings_total`) and reported once to
    /// ``SecondLevelConfiguration/observer``.
    ///
    /// Clears never skip the store: a clear made while the breaker is open is sent (the store queues and retries
    /// it until applied), and the clear marks this replica keeps refuse, once the breaker closes, every value sealed
    /// before it, whatever Redis still holds.
    public struct CircuitBreaker: Sendable, Hashable {
        /// Consecutive read errors or timeouts that open the breaker (at least 1). Default 5: one slow moment does
        /// not open it, a store that stopped answering does within a handful of reads.
        public var failureThreshold: Int
        /// How long the second level is skipped once the breaker opened. Default 10 s: a restarting or failing-over
        /// Redis is back within seconds, and one read per period is all a stalled one costs.
        public var breakDuration: Duration

        public init(failureThreshold: Int = 5, breakDuration: Duration = .seconds(10)) {
            self.failureThreshold = failureThreshold
            self.breakDuration = breakDuration
        }

        var stateMachine: CircuitBreakerStateMachine.Configuration {
            .init(failureThreshold: failureThreshold, breakDuration: breakDuration)
        }
    }

    /// How long the store keeps an entry fresh for `lifetime` (nil: never expires).
    func timeToLive(lifetime: Duration?, hasValidators: Bool) -> Duration {
        Self.timeToLive(
            lifetime: lifetime, hasValidators: hasValidators, retention: revalidationRetention,
            maximum: maximumTimeToLive)
    }

    /// The lifetime, plus `retention` when the entry can be revalidated, capped by `maximum`; at least a second.
    static func timeToLive(lifetime: Duration?, hasValidators: Bool, retention: Duration, maximum: Duration)
        -> Duration
    {
        guard let lifetime else { return maximum }
        let kept = lifetime + (hasValidators ? retention : .zero)
        return max(.seconds(1), min(kept, maximum))
    }
}

/// What the second level tells ``SecondLevelConfiguration/observer``: something a Redis writer did, reported once.
public enum SecondLevelEvent: Hashable, Sendable {
    /// A namespace's generation or the fleet epoch in Redis is beyond any the fleet writes (someone set it):
    /// `namespace` (a keyed hash, no user id) gets no hits on this replica until the fleet's next clear of it (or of
    /// everything) writes a plausible one. Reported once per namespace until then; each read is counted as an
    /// `implausible` rejection.
    case implausibleGeneration(namespace: String)
    /// `consecutiveFailures` reads in a row failed or passed their deadline (or the trial after a break failed): the
    /// second level is skipped for `breakDuration`, then tried again. Reported once per opening.
    case circuitOpened(consecutiveFailures: Int, breakDuration: Duration)
    /// The trial read after a break was answered: the second level is used again.
    case circuitClosed
}
