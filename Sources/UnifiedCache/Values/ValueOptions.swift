import CacheCore

/// How one value is cached: how long it stays fresh and whether it may go to the shared second level.
public struct ValueCacheOptions: Sendable, Hashable {
    /// Whether a value may be written to (and read from) the sealed second level.
    public enum SecondLevel: Sendable, Hashable {
        /// Through the second level when the hub has one (the default): a replica that starts cold reads it.
        case allowed
        /// In this replica's memory only: for values that must not leave the process, even sealed.
        case skipped
    }

    /// How long the value is fresh, on the hub's clock; nil uses the settings' default timeout.
    public var duration: Duration?
    /// Whether the value may go to the second level.
    public var secondLevel: SecondLevel
    /// This call's resilience options, over the hub's (`CacheHub.Configuration.resilience`): fail-safe serves the
    /// last value within its window when the factory throws or times out, the soft timeout returns it at once while
    /// the factory completes in the background, the hard timeout ends a call with nothing to serve with
    /// ``UnifiedCacheError/Code/timedOut``, and eager refresh runs the factory once in the background for a value
    /// late in its life. Nil: the hub's.
    public var resilience: CacheResilience?

    public init(duration: Duration? = nil, secondLevel: SecondLevel = .allowed, resilience: CacheResilience? = nil) {
        self.duration = duration
        self.secondLevel = secondLevel
        self.resilience = resilience
    }

    /// The store's timeout for ``duration``; nil when the duration is negative (the caller's mistake).
    var timeout: Timeout? {
        guard let duration else { return .useDefault }
        let (seconds, attoseconds) = duration.components
        let value = Double(seconds) + Double(attoseconds) / 1e18
        return value >= 0 ? .seconds(value) : nil
    }
}
