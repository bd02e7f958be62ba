import CacheCore

/// How many sessions the hub started and why they ended: the numbers an operator watches to see that sessions
/// end by themselves (expiry, the live-session bound, memory pressure) and how often a session id came back
/// with another principal.
public struct SessionLifecycleStatistics: Hashable, Sendable {
    /// Sessions live now.
    public var live = 0
    /// Sessions started since the hub was created.
    public var created = 0
    /// Token refreshes applied to a live session (same id and principal, new credentials).
    public var credentialRefreshes = 0
    /// Sessions ended, by reason: `logout` (``CacheHub/endSession(id:reason:)``), `sessionExpired`
    /// (idle), `sessionEvicted` (the live-session bound), `principalChanged` (the same id with another principal),
    /// `memoryPressure` (the process memory budget).
    public var ended: [String: Int] = [:]

    public init() {}

    /// Sessions ended for one reason.
    public func ended(_ reason: ClearReason) -> Int {
        ended[reason.description, default: 0]
    }
}
