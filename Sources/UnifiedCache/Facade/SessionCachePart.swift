import CacheCore

/// A cache of your own that belongs to a session and must go with it (the seeds' WebView cache: rendered
/// fragments, a per-user template cache, …). Registered in ``CacheHub/Configuration/sessionCacheParts``, it is
/// cleared by ``DefaultUnifiedCacheManager/clearAllCaches()`` and when the session ends; a failure is reported in
/// the clear's report and does not stop the other parts.
public protocol SessionCachePart: Sendable {
    /// The part's name in reports (`"webCache"`).
    var name: String { get }
    /// Clears everything the part holds for the session.
    func clearAll(sessionID: String, reason: ClearReason) async throws
}
