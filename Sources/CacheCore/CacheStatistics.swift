/// Counters of one scope, or of the whole process when added together.
///
/// The seeds track hits, misses and stale hits to tune timeouts; on a server the same numbers also show whether
/// the cache pays for its memory, so they are always on (not only in debug builds) and cost a few integer
/// increments under a lock the operation holds anyway.
public struct CacheStatistics: Sendable, Codable, Equatable {
    /// Lookups answered with a fresh entry.
    public var hits: Int
    /// Lookups that found nothing.
    public var misses: Int
    /// Lookups answered with an expired entry (still useful: stale-while-revalidate, stale-if-error).
    public var staleHits: Int
    /// Expired entries removed by `CacheStore.purgeExpired` (or, for the GraphQL store, records removed by its
    /// purge by write time).
    public var expirations: Int
    /// Entries removed to respect the count limit, the byte limit or the process memory budget.
    public var evictions: Int
    /// Values stored (new keys and replacements).
    public var inserts: Int
    /// Upstream calls reported through `CacheStore.record(_:in:)`.
    public var networkFetches: Int
    /// Requests that joined an identical in-flight upstream call instead of making their own.
    public var deduplicatedJoins: Int
    /// Entries held now.
    public var entryCount: Int
    /// Bytes charged now (payload, key and per-entry overhead).
    public var byteCount: Int

    public init(
        hits: Int = 0,
        misses: Int = 0,
        staleHits: Int = 0,
        expirations: Int = 0,
        evictions: Int = 0,
        inserts: Int = 0,
        networkFetches: Int = 0,
        deduplicatedJoins: Int = 0,
        entryCount: Int = 0,
        byteCount: Int = 0
    ) {
        self.hits = hits
        self.misses = misses
        self.staleHits = staleHits
        self.expirations = expirations
        self.evictions = evictions
        self.inserts = inserts
        self.networkFetches = networkFetches
        self.deduplicatedJoins = deduplicatedJoins
        self.entryCount = entryCount
        self.byteCount = byteCount
    }

    /// Every lookup counted.
    public var lookups: Int {
        hits + misses + staleHits
    }

    /// Share of lookups served fresh from the cache, 0 when nothing was looked up.
    public var hitRate: Double {
        ratio(hits, lookups)
    }

    /// Share of lookups served stale.
    public var staleHitRate: Double {
        ratio(staleHits, lookups)
    }

    /// Share of lookups served from the cache at all (fresh or stale): the seeds' "best UX metric".
    public var effectiveHitRate: Double {
        ratio(hits + staleHits, lookups)
    }

    /// Adds counters and current sizes, e.g. to total several scopes.
    public static func + (lhs: CacheStatistics, rhs: CacheStatistics) -> CacheStatistics {
        CacheStatistics(
            hits: lhs.hits + rhs.hits,
            misses: lhs.misses + rhs.misses,
            staleHits: lhs.staleHits + rhs.staleHits,
            expirations: lhs.expirations + rhs.expirations,
            evictions: lhs.evictions + rhs.evictions,
            inserts: lhs.inserts + rhs.inserts,
            networkFetches: lhs.networkFetches + rhs.networkFetches,
            deduplicatedJoins: lhs.deduplicatedJoins + rhs.deduplicatedJoins,
            entryCount: lhs.entryCount + rhs.entryCount,
            byteCount: lhs.byteCount + rhs.byteCount
        )
    }

    public static func += (lhs: inout CacheStatistics, rhs: CacheStatistics) {
        lhs = lhs + rhs
    }

    /// The counters without the current sizes: what remains of a scope once its partition is dropped.
    public var countersOnly: CacheStatistics {
        var copy = self
        copy.entryCount = 0
        copy.byteCount = 0
        return copy
    }

    private func ratio(_ part: Int, _ whole: Int) -> Double {
        whole == 0 ? 0 : Double(part) / Double(whole)
    }
}
