import CacheCore
import Synchronization

extension GraphQLCacheConfig {
    /// The longest time any of these rules keeps a field fresh, jitter included; nil when some field never expires
    /// (then nothing can be purged by age: records go by clears, limits and the budget).
    public var longestLifetime: Duration? {
        guard isTimeoutEnabled else { return nil }
        var longest = defaultTimeout
        for timeout in Array(typeTimeouts.values) + Array(fieldTimeouts.values) {
            guard let seconds = timeout.timeInterval(default: defaultTimeout) else { return nil }
            longest = max(longest, seconds)
        }
        return OutsideValue.clampedDuration(seconds: longest) + max(.zero, jitterMaxDuration)
    }

    /// The longest fail-safe window of ``operationResilience``; zero when none turns fail-safe on.
    var longestOperationFailSafeWindow: Duration {
        operationResilience.values.compactMap(\.failSafeMaxDuration).max() ?? .zero
    }
}

extension GraphQLClient.Shared {
    /// How long past its freshness a record must be kept so that fail-safe can still serve it: the longest window
    /// of the client's default, of ``GraphQLCacheConfig/operationResilience`` and of any call's `resilience:` so far.
    /// A purge that keeps records this much longer never takes a record a fail-safe answer still needs.
    public var failSafeRetention: Duration {
        let configured = max(
            configuration.resilience.failSafeMaxDuration ?? .zero,
            rules.withLock { $0.config.longestOperationFailSafeWindow })
        let perCall = Duration.nanoseconds(longestCallFailSafeWindow.load(ordering: .relaxed))
        return max(configured, perCall)
    }

    /// The write time before which no record can be served any more, fresh or by fail-safe: now minus the longest
    /// lifetime of the rules, minus ``failSafeRetention``, minus `grace`. Nil when some field never expires. What
    /// a periodic maintenance passes to ``GraphQLNormalizedStore/purgeRecords(writtenBefore:)``.
    public func recordPurgeCutoff(now: CacheInstant, grace: Duration = .zero) -> CacheInstant? {
        guard let lifetime = cacheConfig.longestLifetime else { return nil }
        return now.advanced(by: .zero - lifetime - failSafeRetention - max(.zero, grace))
    }

    /// Notes a call's own fail-safe window, so purges keep records that long too.
    func noteCallFailSafeWindow(_ window: Duration) {
        let nanoseconds = Self.nanoseconds(window)
        var current = longestCallFailSafeWindow.load(ordering: .relaxed)
        while nanoseconds > current {
            let (exchanged, original) = longestCallFailSafeWindow.compareExchange(
                expected: current, desired: nanoseconds, ordering: .relaxed)
            if exchanged { return }
            current = original
        }
    }

    /// A duration in whole nanoseconds, saturated at `Int64.max` (a window of centuries stays one).
    static func nanoseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        guard seconds < Int64.max / 1_000_000_000 else { return .max }
        return max(0, seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
