/// What happened to a value given to `CacheStore.insert`.
///
/// A refused insert is an expected result on a busy server (a logout cleared the scope while the upstream call
/// was in flight), not an error: the caller still has the value and serves it, it just is not cached.
public enum InsertOutcome: Hashable, Sendable {
    /// Stored, replacing any previous value under the key.
    case stored
    /// The scope was cleared after the caller took its `CacheGeneration`; storing would resurrect cleared data.
    case rejectedStaleGeneration
    /// The value alone is larger than the scope's byte limit or the memory budget; nothing was evicted for it.
    case rejectedTooLarge
    /// The input cannot be stored (negative cost, invalid timeout); the code says which.
    case rejectedInvalid(CacheCoreError.Code)

    /// Whether the value is now in the cache.
    public var isStored: Bool {
        self == .stored
    }
}
