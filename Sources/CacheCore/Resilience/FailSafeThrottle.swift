import Synchronization

/// Remembers, per key, until when a failing upstream must not be asked again because a fail-safe answer was just
/// given: while a key is throttled, a door answers with the stale entry it holds without calling the upstream
/// (FusionCache's fail-safe throttle). The entry itself is left as it is, so the fail-safe window keeps counting
/// from the entry's own expiry and ends when it would have ended: the throttle never lengthens it.
///
/// Set inside the one de-duplicated upstream call (before its callers are released), so callers arriving after the
/// failure find the throttle and the failing upstream is asked once per period however many callers there are.
/// A throttled key with no stale entry left (cleared, purged) is asked again: the throttle only ever chooses
/// between a stale answer and a new call, never between an answer and an error.
///
/// Bounded: past ``capacity`` keys, the periods that have ended are forgotten first, then the oldest.
public final class FailSafeThrottle<Key: Hashable & Sendable>: Sendable {
    private let until = Mutex<[Key: CacheInstant]>([:])
    /// The most keys remembered at once.
    public let capacity: Int

    /// - Parameter capacity: the most keys remembered at once (at least 1).
    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// Keys currently remembered (some periods may have ended).
    public var count: Int {
        until.withLock { $0.count }
    }

    /// Whether the upstream must not be asked for `key` at `now`. Skips the lock when nothing is throttled.
    public func isThrottled(_ key: Key, at now: CacheInstant) -> Bool {
        until.withLock { until in
            guard !until.isEmpty, let end = until[key] else { return false }
            if now < end { return true }
            until[key] = nil
            return false
        }
    }

    /// Throttles `key` from `now` for `period`.
    public func throttle(_ key: Key, for period: Duration, now: CacheInstant) {
        let end = now.advanced(by: period)
        until.withLock { until in
            if until[key] == nil, until.count >= capacity {
                until = until.filter { now < $0.value }
                if until.count >= capacity, let oldest = until.min(by: { $0.value < $1.value })?.key {
                    until[oldest] = nil
                }
            }
            until[key] = end
        }
    }

    /// Ends the throttle of `key` (the upstream answered again).
    public func lift(_ key: Key) {
        until.withLock { until in
            if !until.isEmpty { until[key] = nil }
        }
    }

    /// Ends the throttles of every key that `matches` (a cleared scope).
    public func lift(where matches: (Key) -> Bool) {
        until.withLock { until in
            until = until.filter { !matches($0.key) }
        }
    }
}
