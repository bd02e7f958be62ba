import Logging
import UnifiedCache

/// Sends every cache event to the app's `Logger`, at levels a production app can leave on.
///
/// Per-request events (hits, misses, stale hits, inserts, removals, evictions, joins) log at `trace`; upstream calls,
/// refused inserts, clears and session endings at `debug`. Metadata names sessions and keys by their fingerprints
/// (as ``CacheScope``'s description and ``ExportRedaction`` print them), never by id, and never carries a value.
///
/// ```swift
/// let hub = try CacheHub(configuration: configuration, settings: settings,
///                        observer: CacheEventLogger(logger: app.logger))
/// ```
///
/// The logger's level is read once, here: an event below it costs one comparison, so a hit at `info` stays cheap.
/// Make a new observer to change the level.
public struct CacheEventLogger: CacheEventObserver {
    public let logger: Logger
    private let logsTrace: Bool
    private let logsDebug: Bool

    public init(logger: Logger) {
        self.logger = logger
        self.logsTrace = logger.logLevel <= .trace
        self.logsDebug = logger.logLevel <= .debug
    }

    public func cacheDidEmit(_ event: CacheEvent) {
        switch event {
        case .hit, .miss, .stale, .inserted, .evicted, .removed, .deduplicatedJoin:
            guard logsTrace else { return }
        case .rejected, .cleared, .networkCall, .sessionEnded:
            guard logsDebug else { return }
        }
        log(event)
    }

    private func log(_ event: CacheEvent) {
        switch event {
        case .hit(let scope, let key):
            logger.trace("cache hit", metadata: Self.metadata(scope, key))
        case .miss(let scope, let key):
            logger.trace("cache miss", metadata: Self.metadata(scope, key))
        case .stale(let scope, let key, let staleness):
            var metadata = Self.metadata(scope, key)
            metadata["cache.staleness_ms"] = "\(staleness.milliseconds)"
            logger.trace("cache stale hit", metadata: metadata)
        case .inserted(let scope, let key, let chargedBytes):
            var metadata = Self.metadata(scope, key)
            metadata["cache.bytes"] = "\(chargedBytes)"
            logger.trace("cache insert", metadata: metadata)
        case .rejected(let scope, let key, let outcome):
            var metadata = Self.metadata(scope, key)
            metadata["cache.outcome"] = "\(outcome)"
            logger.debug("cache insert refused", metadata: metadata)
        case .evicted(let scope, let key, let reason):
            var metadata = Self.metadata(scope, key)
            metadata["cache.reason"] = "\(reason)"
            logger.trace("cache eviction", metadata: metadata)
        case .removed(let scope, let key):
            logger.trace("cache removal", metadata: Self.metadata(scope, key))
        case .cleared(let report):
            logger.debug(
                "cache cleared",
                metadata: [
                    "cache.scope": "\(report.scope)", "cache.reason": "\(Self.name(of: report.reason))",
                    "cache.removed": "\(report.entries)",
                ])
        case .networkCall(let scope, let key, let status, let duration):
            var metadata = Self.metadata(scope, key)
            metadata["http.response.status_code"] = status.map { "\($0)" } ?? "failed"
            metadata["cache.duration_ms"] = "\(duration.milliseconds)"
            logger.debug("cache upstream call", metadata: metadata)
        case .deduplicatedJoin(let scope, let key):
            logger.trace("cache joined a call in flight", metadata: Self.metadata(scope, key))
        case .sessionEnded(let scope, let reason):
            logger.debug(
                "cache session ended",
                metadata: ["cache.scope": "\(scope)", "cache.reason": "\(Self.name(of: reason))"])
        }
    }

    /// The scope's and the key's fingerprints.
    static func metadata(_ scope: CacheScope, _ key: String) -> Logger.Metadata {
        ["cache.scope": "\(scope)", "cache.key": "#\(ExportRedaction.fingerprint(of: key))"]
    }

    /// A clear reason's name; a caller's own reasons are all `custom` (their names are the caller's text).
    static func name(of reason: ClearReason) -> String {
        if case .custom = reason { return "custom" }
        return reason.description
    }
}

extension Duration {
    /// Whole milliseconds, for log metadata.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1_000 + attoseconds / 1_000_000_000_000_000
    }
}
