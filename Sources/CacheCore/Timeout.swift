/// How long an entry stays fresh after it was stored.
///
/// The names are the seeds' (`Timeout` of NABAPICoreKit, `QueryCacheTimeout` of APICoreKit) so callers migrating
/// from them find what they know. An expired entry is not deleted at once: it is served as stale (for
/// stale-while-revalidate, stale-if-error and ETag revalidation) until it is evicted, purged or replaced.
public enum Timeout: Hashable, Sendable {
    /// Fresh for this many seconds after it was stored; `0` stores an entry that is stale at once (useful to keep
    /// a body only for revalidation). Negative, NaN and infinite values are rejected by the store.
    case seconds(Double)
    /// Fresh until it is removed: for data that only changes through an explicit clear.
    case never
    /// Whatever the store is configured with (`CacheStore.Configuration.defaultTimeout`, 300 s by default), so
    /// one setting changes every request that did not choose its own timeout.
    case useDefault
}

extension Timeout {
    /// The timeout with `useDefault` replaced by `defaultTimeout`.
    ///
    /// A default that is itself `useDefault` resolves to `never` rather than looping; the store refuses such a
    /// configuration, so this only matters for callers resolving on their own.
    public func resolved(default defaultTimeout: Timeout) -> Timeout {
        guard case .useDefault = self else {
            return self
        }
        if case .useDefault = defaultTimeout {
            return .never
        }
        return defaultTimeout
    }

    /// Whether the store can use this timeout: seconds must be finite and not negative.
    var isValid: Bool {
        switch self {
        case .seconds(let seconds):
            return seconds.isFinite && seconds >= 0
        case .never, .useDefault:
            return true
        }
    }

    /// The freshness lifetime once resolved; `nil` means the entry never expires. Absurd values (a century and more)
    /// mean "practically never" (``OutsideValue/longestDuration``) instead of trapping.
    func lifetime(default defaultTimeout: Timeout) -> Duration? {
        switch resolved(default: defaultTimeout) {
        case .seconds(let seconds):
            return OutsideValue.clampedDuration(seconds: seconds)
        case .never, .useDefault:
            return nil
        }
    }
}
