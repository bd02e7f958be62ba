import Logging
import UnifiedCache

/// Sends replication events to the app's `Logger`: what an operator must see when replicas stop agreeing.
///
/// Link changes log at `notice` (up, stopped) or `warning` (down); a rejected message (wrong secret, forged or
/// corrupt) and local entries dropped after a gap at `warning`; clears that could not be sent (the outgoing queue
/// overflowed: other replicas may keep what this one cleared) at `error`. No session, account or key is logged.
///
/// ```swift
/// configuration.replication = ReplicationConfiguration(transport: transport, secret: secret,
///                                                      observer: ReplicationEventLogger(logger: logger).observe)
/// ```
public struct ReplicationEventLogger: Sendable {
    public let logger: Logger

    public init(logger: Logger) {
        self.logger = logger
    }

    /// The function to pass as `ReplicationConfiguration.observer`.
    public var observe: @Sendable (ReplicationEvent) -> Void {
        { event in self.log(event) }
    }

    public func log(_ event: ReplicationEvent) {
        switch event {
        case .linkChanged(let state):
            switch state {
            case .subscribed:
                logger.notice("cache replication link up")
            case .connecting:
                logger.debug("cache replication link connecting")
            case .disconnected(let reason):
                logger.warning("cache replication link down", metadata: ["cache.reason": "\(reason)"])
            case .stopped:
                logger.notice("cache replication link stopped")
            }
        case .droppedLocalEntriesAfterGap(let entries, let records):
            logger.warning(
                "cache dropped local entries after a replication gap",
                metadata: ["cache.entries": "\(entries)", "cache.records": "\(records)"])
        case .droppedLocalEntriesOnRequest(let entries, let records):
            logger.notice(
                "cache dropped local entries at another replica's request",
                metadata: ["cache.entries": "\(entries)", "cache.records": "\(records)"])
        case .rejectedMessage(let reason):
            logger.warning("cache replication message rejected", metadata: ["cache.reason": "\(reason.rawValue)"])
        case .droppedOutgoingMessages:
            logger.error("cache replication dropped outgoing clears; other replicas may serve what was cleared here")
        }
    }
}
