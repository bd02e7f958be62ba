import CacheCore
import Foundation
import RESTCache

extension CacheHub {
    /// The second level's counters (the store's and the caches' own); nil when the hub has no
    /// ``Configuration/secondLevel``.
    public var secondLevelStatistics: SecondLevelCacheStatistics? { secondLevel?.statistics() }

    /// Drops everything every replica stored in the second level, in one command (every namespace moves to a new
    /// generation; the old entries go by their time-to-live). For a fleet-wide reset: a deploy that changes what
    /// responses mean, or after clears were lost. Memory (L1) of the replicas is not touched. Returns once the store
    /// applied it or after its clear deadline (it stays queued).
    public func clearSecondLevel() async {
        await secondLevel?.clearAll()
    }

    /// Waits for second-level clears started in passing (a GraphQL mutation's record changes).
    public func waitForSecondLevelClears() async {
        await secondLevel?.pending.drain()
    }

}

extension SecondLevelFront {
    /// The `ucache_l2_*` families, appended to ``CacheHub/metricFamilies()``.
    func metricFamilies(namespace: String = "ucache") -> [CacheMetricFamily] {
        let statistics = statistics()
        let store = statistics.store
        let counters: [(String, String, Int)] = [
            ("hits", "Second-level reads that found a usable value.", statistics.hits),
            (
                "misses", "Second-level reads that found nothing usable (unusable and rejected values included).",
                statistics.misses
            ),
            ("errors", "Second-level reads that failed (disconnected, refused, unreadable answer).", store.errors),
            ("timeouts", "Second-level reads that passed their deadline.", store.timeouts),
            (
                "unusable",
                "Values that opened but did not decode, or were implausibly dated; served as misses.",
                statistics.unusable
            ),
            ("writes", "Values sent to the second level.", store.writes),
            (
                "dropped_writes", "Writes dropped: queue full, over the size limit, or store unavailable.",
                store.droppedWrites
            ),
            ("clears", "Clears this replica applied to the second level.", statistics.clears),
            ("circuit_openings", "Times the second level's circuit breaker opened.", statistics.circuitOpenings),
            ("skipped_reads", "Reads not sent while the circuit breaker was open.", statistics.skippedReads),
            ("skipped_writes", "Writes not queued while the circuit breaker was not closed.", statistics.skippedWrites),
            ("bytes_read", "Bytes of values read from the second level.", store.bytesRead),
            ("bytes_written", "Bytes of values sent to the second level.", store.bytesWritten),
        ]
        var families: [CacheMetricFamily] = [
            .single(
                "\(namespace)_l2_up", help: "1 when the second-level store is connected, else 0.", kind: .gauge,
                value: store.isConnected ? 1 : 0),
            .single(
                "\(namespace)_l2_circuit_open",
                help: "1 while the second level's circuit breaker skips the store, else 0.", kind: .gauge,
                value: statistics.isCircuitOpen ? 1 : 0),
        ]
        families += CacheMetricFamily.counters(prefix: "\(namespace)_l2", counters)
        families.append(
            .byReason(
                "\(namespace)_l2_rejected_total",
                help: "Values refused before use (never served): format (not sealed, e.g. an earlier "
                    + "release's), unauthentic (altered, forged or moved), oversize, rollback (a generation set back), "
                    + "malformed and implausible (a generation or epoch no replica wrote), cleared (sealed before a "
                    + "clear this replica saw).",
                statistics.rejected.byReason))
        let latency = "\(namespace)_l2_read_latency_seconds"
        families.append(
            CacheMetricFamily(
                name: latency, help: "Latency of answered second-level reads.", kind: .summary,
                samples: [
                    .init(name: latency + "_sum", value: .double(Double(store.readLatencyNanoseconds) / 1_000_000_000)),
                    .init(name: latency + "_count", value: .int(store.answeredReads)),
                ]))
        return families
    }

    /// The hub's JSON metrics document with a `secondLevel` object added.
    func jsonData(with document: MetricsExport.Document) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let combined = DocumentWithSecondLevel(base: document, secondLevel: .init(statistics()))
        return (try? encoder.encode(combined)) ?? Data()
    }
}

/// The second level as the JSON metrics show it.
public struct SecondLevelMetricsDocument: Hashable, Sendable, Codable {
    public var up: Bool
    public var hits: Int
    public var misses: Int
    public var errors: Int
    public var timeouts: Int
    public var unusable: Int
    /// Values refused before use, by reason.
    public var rejected: SecondLevelRejections
    public var writes: Int
    public var droppedWrites: Int
    public var clears: Int
    /// Times the circuit breaker opened, reads and writes it skipped, and whether it is open now.
    public var circuitOpenings: Int
    public var skippedReads: Int
    public var skippedWrites: Int
    public var circuitOpen: Bool
    public var bytesRead: Int
    public var bytesWritten: Int
    /// Mean latency of answered reads, in seconds (0 before the first).
    public var meanReadLatencySeconds: Double
    public var answeredReads: Int

    public init(_ statistics: SecondLevelCacheStatistics) {
        let store = statistics.store
        up = store.isConnected
        hits = statistics.hits
        misses = statistics.misses
        errors = store.errors
        timeouts = store.timeouts
        unusable = statistics.unusable
        rejected = statistics.rejected
        writes = store.writes
        droppedWrites = store.droppedWrites
        clears = statistics.clears
        circuitOpenings = statistics.circuitOpenings
        skippedReads = statistics.skippedReads
        skippedWrites = statistics.skippedWrites
        circuitOpen = statistics.isCircuitOpen
        bytesRead = store.bytesRead
        bytesWritten = store.bytesWritten
        answeredReads = store.answeredReads
        meanReadLatencySeconds =
            store.answeredReads == 0
            ? 0 : Double(store.readLatencyNanoseconds) / Double(store.answeredReads) / 1_000_000_000
    }
}

/// The metrics document and the second level side by side in one JSON object.
private struct DocumentWithSecondLevel: Encodable {
    let base: MetricsExport.Document
    let secondLevel: SecondLevelMetricsDocument

    private enum Keys: String, CodingKey { case secondLevel }

    func encode(to encoder: any Encoder) throws {
        try base.encode(to: encoder)
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(secondLevel, forKey: .secondLevel)
    }
}
