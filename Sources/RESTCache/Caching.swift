/// What `APIService` needs of a cache (the seed's `Caching` protocol), bound to one session.
///
/// ``CacheManager`` is the implementation over CacheCore's scoped store; another implementation can be
/// injected for tests of callers.
public protocol Caching: Sendable {
    /// The session scope this cache reads and writes by default.
    var scope: CacheScope { get }
    /// The timeout `.useDefault` stands for.
    var defaultTimeout: Timeout { get }
    /// Looks an entry up, counting a hit, stale hit or miss.
    func lookup(_ key: String, in scope: CacheScope) -> CacheLookup
    /// Looks an entry up without counting it or touching its recency.
    func peek(_ key: String, in scope: CacheScope) -> CacheLookup
    /// The generation to pass back to `store` for an answer fetched from now on.
    func generation(of scope: CacheScope) -> CacheGeneration
    /// Stores a decoded response unless the scope was cleared since `generation` was taken.
    @discardableResult
    func store(
        _ value: some Sendable,
        byteCost: Int,
        key: String,
        in scope: CacheScope,
        metadata: CacheEntryMetadata,
        ifGeneration generation: CacheGeneration?
    ) -> InsertOutcome
    /// Marks a stale entry fresh again after a 304.
    @discardableResult
    func refresh(
        key: String,
        in scope: CacheScope,
        timeout: Timeout?,
        validators: CacheValidators?,
        ifGeneration generation: CacheGeneration?
    ) -> RefreshOutcome
    /// Removes one entry.
    @discardableResult
    func remove(key: String, in scope: CacheScope) -> Bool
    /// Invalidates entries after a mutation; uplifted entries stay.
    @discardableResult
    func invalidate(_ target: InvalidationTarget, in scope: CacheScope) -> ClearReport
    /// Reports upstream activity for the statistics.
    func record(_ activity: CacheActivity, in scope: CacheScope)
}

/// What a mutation invalidates.
public enum InvalidationTarget: Hashable, Sendable {
    case keyPrefix(String)
    case domain(String)
    case account(String)
    case entityKey(String)
    /// The entries read from this request path (`/api/payees`).
    case path(String)
}
