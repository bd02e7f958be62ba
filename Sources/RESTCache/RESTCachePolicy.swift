/// How a request combines the cache and the network (the cache-strategy seed's policies).
public enum RESTCachePolicy: Hashable, Sendable {
    /// A fresh cached answer if there is one, else the network, then store. The default.
    case cacheFirst
    /// Always the network; the answer is stored.
    case networkOnly
    /// Always the network; the answer is not stored.
    case noCache
    /// Only the cache: a fresh entry, else ``API/cacheMiss``. Never touches the network.
    case cacheOnly
    /// The network first; if it fails (transport error or 5xx), the cached answer, fresh or stale.
    case networkFirst
    /// Fresh: the cache. Stale but within `gracePeriod` past expiry: the stale answer at once, and one
    /// background refresh. Older or missing: the network. The answer is kept in memory for the grace period
    /// past its expiry (maintenance does not purge it sooner).
    case staleWhileRevalidate(gracePeriod: Duration)
    /// Like cache-first, but if refreshing a stale entry fails, the stale answer is returned when it expired at
    /// most `maximumStaleness` ago. The answer is kept in memory for that long past its expiry (maintenance does
    /// not purge it sooner; memory pressure may).
    case staleIfError(maximumStaleness: Duration)

    /// How long past its expiry an answer stored under this policy may still be served: stale-while-revalidate's
    /// grace, stale-if-error's maximum staleness, zero for the others. Stored with the entry
    /// (``CacheEntryMetadata/staleRetention``), so maintenance keeps it for that long instead of purging it a
    /// grace period after expiry.
    var staleRetention: Duration {
        switch self {
        case .staleWhileRevalidate(let gracePeriod): return gracePeriod
        case .staleIfError(let maximumStaleness): return maximumStaleness
        case .cacheFirst, .networkOnly, .noCache, .cacheOnly, .networkFirst: return .zero
        }
    }

    /// Whether this policy may answer from the cache before asking the network.
    @inlinable
    var readsCacheFirst: Bool {
        switch self {
        case .cacheFirst, .cacheOnly, .staleWhileRevalidate, .staleIfError: return true
        case .networkOnly, .noCache, .networkFirst: return false
        }
    }
}

/// Where an answer came from: the seeds' "data with source".
public enum ResponseSource: String, Hashable, Sendable, Codable {
    /// A fresh cache entry.
    case cache
    /// The upstream, just now (including a 304 revalidation of a cached entry).
    case network
    /// A cache entry past its timeout, returned by stale-while-revalidate, network-first or stale-if-error.
    case staleCache
}

/// A decoded answer with its provenance.
public struct DataWithSource<Value: Sendable>: Sendable {
    /// The decoded response.
    public var data: Value
    /// Where it came from.
    public var source: ResponseSource
    /// How old the cached answer is; zero for a network answer.
    public var age: Duration
    /// Whether a 304 confirmed a cached entry instead of sending a body.
    public var wasRevalidated: Bool
    /// Which resilience option decided this answer: `failSafe` or `softTimeout` for a stale answer (stale-if-error
    /// and network-first fallbacks count as fail-safe, stale-while-revalidate as a soft timeout of zero),
    /// `eagerRefresh` for a fresh hit that started a background refresh; nil otherwise.
    public var staleReason: CacheStaleReason?

    /// Whether the answer is a cached entry past its freshness (``ResponseSource/staleCache``).
    public var isStale: Bool { source == .staleCache }

    public init(data: Value, source: ResponseSource, age: Duration = .zero, wasRevalidated: Bool = false) {
        self.data = data
        self.source = source
        self.age = age
        self.wasRevalidated = wasRevalidated
    }
}
