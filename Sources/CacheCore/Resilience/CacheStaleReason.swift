/// Why a door answered with something other than a fresh entry it simply had: the resilience option that decided
/// it. Reported with every such answer (``CacheHit/staleReason``) and counted per reason in the hub's metrics; the
/// raw values are the snake_case labels telemetry and metrics use.
public enum CacheStaleReason: String, Hashable, Sendable, CaseIterable {
    /// The upstream failed or timed out and an entry past its freshness, within its fail-safe window, answered
    /// (REST's `staleIfError` and network-first fallbacks count here too).
    case failSafe = "fail_safe"
    /// The upstream had not answered within the soft timeout and a stale entry answered at once while the call
    /// completes in the background (REST's `staleWhileRevalidate` counts here too: a soft timeout of zero).
    case softTimeout = "soft_timeout"
    /// A fresh entry late in its life answered and started one background refresh.
    case eagerRefresh = "eager_refresh"
}
