/// What a door may do with a cached entry at a given instant under a ``CacheResilience``: the one decision every
/// front door takes before it asks its upstream.
public enum CacheEntryFreshness: Hashable, Sendable {
    /// Fresh: answer with it.
    case fresh
    /// Fresh, but past the eager-refresh threshold of its lifetime: answer with it and start one background refresh.
    case refreshEagerly
    /// Past its freshness but within its fail-safe window: ask the upstream, and answer with it if the upstream
    /// fails, times out or is slower than the soft timeout.
    case staleUsable
    /// Past every window the options allow (or fail-safe is off): ask the upstream as if there were no entry.
    case unusable
}

extension CacheResilience {
    /// Decides what an entry is good for at `now`.
    ///
    /// - Parameters:
    ///   - storedAt: when the entry was written (the start of its lifetime, for the eager-refresh share).
    ///   - expiresAt: when it stops being fresh; nil for an entry that never expires (always ``CacheEntryFreshness/fresh``).
    ///   - now: the door's clock.
    /// - Returns: fresh until `expiresAt` (eager-refresh once `eagerRefreshThreshold` of the lifetime has passed),
    ///   then usable for fail-safe while `now - expiresAt <= failSafeMaxDuration`, then unusable.
    @inlinable
    public func freshness(storedAt: CacheInstant, expiresAt: CacheInstant?, now: CacheInstant) -> CacheEntryFreshness {
        guard let expiresAt else { return .fresh }
        if now < expiresAt {
            guard let threshold = eagerRefreshThreshold else { return .fresh }
            let lifetime = expiresAt.nanoseconds &- storedAt.nanoseconds
            let elapsed = now.nanoseconds &- storedAt.nanoseconds
            // A threshold outside (0, 1) is clamped by validation; here it only has to be safe.
            guard lifetime > 0, threshold > 0, threshold < 1 else { return .fresh }
            return Double(elapsed) >= Double(lifetime) * threshold ? .refreshEagerly : .fresh
        }
        guard let window = failSafeMaxDuration else { return .unusable }
        let staleness = now.duration(since: expiresAt)
        return staleness <= window ? .staleUsable : .unusable
    }

    /// Whether an entry has lived `share` of its lifetime at `now` (never, for an entry that never expires): the test
    /// a fresh hit makes against the lowest eager-refresh threshold that could apply, so a hit younger than every
    /// threshold never works out the options in force.
    @inlinable
    public static func hasLived(
        _ share: Double, storedAt: CacheInstant, expiresAt: CacheInstant?, now: CacheInstant
    ) -> Bool {
        guard let expiresAt else { return false }
        let lifetime = expiresAt.nanoseconds &- storedAt.nanoseconds
        let elapsed = now.nanoseconds &- storedAt.nanoseconds
        return lifetime > 0 && Double(elapsed) >= Double(lifetime) * share
    }

    /// How long past its expiry an entry written under these options must be kept so fail-safe can still serve it
    /// (``CacheEntryMetadata/staleRetention``): the fail-safe window, zero when fail-safe is off.
    public var staleRetention: Duration {
        failSafeMaxDuration ?? .zero
    }
}
