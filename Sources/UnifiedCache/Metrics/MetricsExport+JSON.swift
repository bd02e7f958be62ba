import CacheCore
import Foundation

extension MetricsExport {
    /// The statistics of one series (or of the totals) as JSON shows them: the counters, the sizes, and the rates
    /// people read first.
    public struct StatisticsDocument: Hashable, Sendable, Codable {
        public var part: String?
        public var scope: ScopeKind?
        public var hits: Int
        public var staleHits: Int
        public var misses: Int
        public var lookups: Int
        public var inserts: Int
        public var evictions: Int
        public var expirations: Int
        public var networkFetches: Int
        public var deduplicatedJoins: Int
        public var entryCount: Int
        public var byteCount: Int
        public var hitRate: Double
        public var staleHitRate: Double
        public var effectiveHitRate: Double

        public init(_ statistics: CacheStatistics, part: String? = nil, scope: ScopeKind? = nil) {
            self.part = part
            self.scope = scope
            hits = statistics.hits
            staleHits = statistics.staleHits
            misses = statistics.misses
            lookups = statistics.lookups
            inserts = statistics.inserts
            evictions = statistics.evictions
            expirations = statistics.expirations
            networkFetches = statistics.networkFetches
            deduplicatedJoins = statistics.deduplicatedJoins
            entryCount = statistics.entryCount
            byteCount = statistics.byteCount
            hitRate = statistics.hitRate
            staleHitRate = statistics.staleHitRate
            effectiveHitRate = statistics.effectiveHitRate
        }
    }

    /// The whole export as JSON shows it.
    public struct Document: Hashable, Sendable, Codable {
        public var series: [StatisticsDocument]
        public var totals: StatisticsDocument
        public var process: ProcessGauges
    }

    /// The export as a value, for a caller that embeds it in its own JSON answer.
    public var document: Document {
        Document(
            series: series.map { StatisticsDocument($0.statistics, part: $0.part, scope: $0.scope) },
            totals: StatisticsDocument(totals),
            process: process
        )
    }

    /// The export as JSON with sorted keys, so equal statistics give equal bytes.
    public func jsonData(prettyPrinted: Bool = false) -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = prettyPrinted ? [.sortedKeys, .prettyPrinted] : [.sortedKeys]
        // Rates are finite (0 when nothing was looked up) and every other field is an integer or a string, so
        // encoding cannot fail.
        return (try? encoder.encode(document)) ?? Data()
    }
}
