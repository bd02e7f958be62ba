/// Something the store did, for logging, tracing and metrics the user wires up.
///
/// Events are delivered after the store released its locks, so an observer may call back into the store, and a
/// slow observer slows only the caller that triggered the event.
public enum CacheEvent: Hashable, Sendable {
    case hit(scope: CacheScope, key: String)
    case miss(scope: CacheScope, key: String)
    /// A lookup found an expired entry; `staleness` is how long past its expiry it was.
    case stale(scope: CacheScope, key: String, staleness: Duration)
    case inserted(scope: CacheScope, key: String, chargedBytes: Int)
    /// An insert was refused; the cache is unchanged.
    case rejected(scope: CacheScope, key: String, outcome: InsertOutcome)
    /// An entry left the store without being asked for by key: limits, memory budget or expiry purge.
    case evicted(scope: CacheScope, key: String, reason: EvictionReason)
    case removed(scope: CacheScope, key: String)
    case cleared(ClearReport)
    case networkCall(scope: CacheScope, key: String, status: Int?, duration: Duration)
    case deduplicatedJoin(scope: CacheScope, key: String)
    /// A session ended (logout, idle expiry, eviction, another principal on its id, memory pressure); everything
    /// it held was cleared.
    case sessionEnded(scope: CacheScope, reason: ClearReason)
}

/// Why an entry was evicted.
public enum EvictionReason: Hashable, Sendable {
    /// The scope reached `maxEntriesPerScope`; the least recently used entry went.
    case entryLimit
    /// The scope reached `maxBytesPerScope`.
    case byteLimit
    /// The process-wide `MemoryBudget` was exceeded.
    case memoryBudget
    /// Removed by `purgeExpired` after its stale horizon (its expiry, or later with a stale retention) plus grace.
    case expired
}

/// Receives the store's events.
///
/// Called synchronously on the thread that caused the event, outside every lock of the store. Keep it cheap
/// (hand off to a logger or a metrics counter); it is on the request path.
public protocol CacheEventObserver: Sendable {
    func cacheDidEmit(_ event: CacheEvent)
}

/// An observer made from a closure, for tests and one-line log hooks.
public struct ClosureCacheEventObserver: CacheEventObserver {
    private let handler: @Sendable (CacheEvent) -> Void

    public init(_ handler: @escaping @Sendable (CacheEvent) -> Void) {
        self.handler = handler
    }

    public func cacheDidEmit(_ event: CacheEvent) {
        handler(event)
    }
}
