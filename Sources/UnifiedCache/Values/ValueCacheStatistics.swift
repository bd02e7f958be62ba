import CacheCore

/// What the value door did, over every session and the shared scope of one hub (ended sessions included).
public struct ValueCacheStatistics: Sendable, Equatable {
    /// Hits, misses, entries and bytes of the values in memory (the value store's own statistics).
    public var memory: CacheStatistics
    /// Factory runs: one per key and scope however many callers waited for it.
    public var factoryRuns = 0
    /// Factory runs that threw (the error went to every waiter; nothing was stored).
    public var factoryFailures = 0
    /// Callers answered by another caller's factory run instead of a run of their own.
    public var joinedCalls = 0
    /// Values a factory returned after their key, tag, scope or session was cleared: handed to the callers, never
    /// stored (in memory or in the second level).
    public var discardedAfterClear = 0
    /// Values read from the second level (no factory run).
    public var secondLevelHits = 0
    /// Values the second level held that the coder could not decode: counted as misses (the factory ran).
    public var decodeFailures = 0

    public init(memory: CacheStatistics = CacheStatistics()) {
        self.memory = memory
    }
}
