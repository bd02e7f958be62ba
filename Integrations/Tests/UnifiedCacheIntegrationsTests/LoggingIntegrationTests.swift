import InMemoryLogging
import Logging
import Testing
import UnifiedCache
import UnifiedCacheLogging

@Suite("Logging: cache events in the app's Logger")
struct LoggingIntegrationTests {
    static func logger(_ handler: InMemoryLogHandler, level: Logger.Level) -> Logger {
        var logger = Logger(label: "bff") { _ in handler }
        logger.logLevel = level
        return logger
    }

    @Test("every cache event kind reaches the logger at its level, with fingerprints and no id, token or body")
    func everyEventKind() async throws {
        let handler = InMemoryLogHandler()
        let harness = try await IntegrationHarness(
            "log-all", observer: CacheEventLogger(logger: Self.logger(handler, level: .trace)))
        try await harness.exerciseEveryEventKind()

        let levels = Dictionary(
            handler.entries.map { ("\($0.message)", $0.level) }, uniquingKeysWith: { first, _ in first })
        #expect(levels["cache miss"] == .trace)
        #expect(levels["cache hit"] == .trace)
        #expect(levels["cache insert"] == .trace)
        #expect(levels["cache upstream call"] == .debug)
        #expect(levels["cache cleared"] == .debug)
        #expect(levels["cache session ended"] == .debug)
        let hit = try #require(handler.entries.first { "\($0.message)" == "cache hit" })
        #expect(hit.metadata["cache.key"] == "#\(ExportRedaction.fingerprint(of: "balances.tok_9f8e7d6c5b4a"))")
        #expect(hit.metadata["cache.scope"]?.description.hasPrefix("session(#") == true)
        for entry in handler.entries {
            let line = "\(entry.message) \(entry.metadata)"
            #expect(IntegrationHarness.revealsSecret(line) == nil, "\(line)")
        }
    }

    @Test("at info, a production level, per-request events and session endings log nothing")
    func quietAtInfo() async throws {
        let handler = InMemoryLogHandler()
        let harness = try await IntegrationHarness(
            "log-info", observer: CacheEventLogger(logger: Self.logger(handler, level: .info)))
        try await harness.exerciseEveryEventKind()
        #expect(handler.entries.isEmpty)
    }

    @Test("replication: link changes at notice and warning, rejected messages at warning, dropped clears at error")
    func replicationEvents() {
        let handler = InMemoryLogHandler()
        let logger = ReplicationEventLogger(logger: Self.logger(handler, level: .info))
        logger.log(.linkChanged(.subscribed))
        logger.log(.linkChanged(.disconnected(reason: "connection refused")))
        logger.log(.rejectedMessage(.replayed))
        logger.log(.droppedOutgoingMessages)
        logger.log(.droppedLocalEntriesAfterGap(entries: 3, records: 2))
        logger.log(.linkChanged(.connecting))

        #expect(handler.entries.map(\.level) == [.notice, .warning, .warning, .error, .warning])
        #expect(handler.entries[1].metadata["cache.reason"] == "connection refused")
        #expect(handler.entries[2].metadata["cache.reason"] == "replayed")
    }
}
