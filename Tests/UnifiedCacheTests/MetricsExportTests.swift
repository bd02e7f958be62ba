import CacheCore
import Foundation
import Testing
import UnifiedCache

@Suite("Metrics export")
struct MetricsExportTests {
    private let rest = CacheStatistics(
        hits: 30, misses: 10, staleHits: 0, expirations: 1, evictions: 2, inserts: 12, networkFetches: 11,
        deduplicatedJoins: 3, entryCount: 9, byteCount: 4096)
    private let graphQL = CacheStatistics(
        hits: 5, misses: 5, staleHits: 0, expirations: 0, evictions: 0, inserts: 5, networkFetches: 5,
        deduplicatedJoins: 0, entryCount: 40, byteCount: 8192)

    @Test("the Prometheus text of a small export is exactly the 0.0.4 exposition")
    func prometheusExact() throws {
        let export = try MetricsExport(
            series: [
                try MetricsExport.Series(part: "rest", scope: .sessions, statistics: rest),
                try MetricsExport.Series(part: "graphql", scope: .sessions, statistics: graphQL),
            ],
            process: MetricsExport.ProcessGauges(memoryBudgetBytes: 1_048_576, memoryUsedBytes: 12_288, sessions: 2)
        )

        #expect(
            export.prometheusText() == """
                # HELP ucache_hits_total Lookups answered with a fresh entry.
                # TYPE ucache_hits_total counter
                ucache_hits_total{part="graphql",scope="session"} 5
                ucache_hits_total{part="rest",scope="session"} 30
                # HELP ucache_stale_hits_total Lookups answered with an expired entry.
                # TYPE ucache_stale_hits_total counter
                ucache_stale_hits_total{part="graphql",scope="session"} 0
                ucache_stale_hits_total{part="rest",scope="session"} 0
                # HELP ucache_misses_total Lookups that found nothing.
                # TYPE ucache_misses_total counter
                ucache_misses_total{part="graphql",scope="session"} 5
                ucache_misses_total{part="rest",scope="session"} 10
                # HELP ucache_inserts_total Values stored (new keys and replacements).
                # TYPE ucache_inserts_total counter
                ucache_inserts_total{part="graphql",scope="session"} 5
                ucache_inserts_total{part="rest",scope="session"} 12
                # HELP ucache_evictions_total Entries removed to respect count, byte or memory limits.
                # TYPE ucache_evictions_total counter
                ucache_evictions_total{part="graphql",scope="session"} 0
                ucache_evictions_total{part="rest",scope="session"} 2
                # HELP ucache_expirations_total Expired entries purged.
                # TYPE ucache_expirations_total counter
                ucache_expirations_total{part="graphql",scope="session"} 0
                ucache_expirations_total{part="rest",scope="session"} 1
                # HELP ucache_network_fetches_total Upstream calls made.
                # TYPE ucache_network_fetches_total counter
                ucache_network_fetches_total{part="graphql",scope="session"} 5
                ucache_network_fetches_total{part="rest",scope="session"} 11
                # HELP ucache_deduplicated_joins_total Requests that joined an identical upstream call in flight.
                # TYPE ucache_deduplicated_joins_total counter
                ucache_deduplicated_joins_total{part="graphql",scope="session"} 0
                ucache_deduplicated_joins_total{part="rest",scope="session"} 3
                # HELP ucache_entries Entries held now.
                # TYPE ucache_entries gauge
                ucache_entries{part="graphql",scope="session"} 40
                ucache_entries{part="rest",scope="session"} 9
                # HELP ucache_bytes Bytes held now (payload, key and per-entry overhead).
                # TYPE ucache_bytes gauge
                ucache_bytes{part="graphql",scope="session"} 8192
                ucache_bytes{part="rest",scope="session"} 4096
                # HELP ucache_memory_budget_bytes The process memory budget's limit in bytes.
                # TYPE ucache_memory_budget_bytes gauge
                ucache_memory_budget_bytes 1048576
                # HELP ucache_memory_used_bytes Bytes charged against the process memory budget.
                # TYPE ucache_memory_used_bytes gauge
                ucache_memory_used_bytes 12288
                # HELP ucache_sessions Sessions open now.
                # TYPE ucache_sessions gauge
                ucache_sessions 2

                """
        )
    }

    @Test("label values escape backslash and double quote")
    func escaping() throws {
        let export = try MetricsExport(
            series: [try MetricsExport.Series(part: #"rest "v2" \ legacy"#, statistics: CacheStatistics(hits: 1))],
            namespace: "bff"
        )

        let lines = export.prometheusText().split(separator: "\n")

        #expect(lines.contains(#"bff_hits_total{part="rest \"v2\" \\ legacy",scope="all"} 1"#))
        #expect(lines.filter { !$0.hasPrefix("#") }.count == 10)
    }

    @Test("output is the same whatever order the series come in")
    func stableOrder() throws {
        let a = try MetricsExport.Series(part: "rest", scope: .shared, statistics: rest)
        let b = try MetricsExport.Series(part: "rest", scope: .sessions, statistics: rest)
        let c = try MetricsExport.Series(part: "graphql", scope: .all, statistics: graphQL)

        let one = try MetricsExport(series: [a, b, c])
        let other = try MetricsExport(series: [c, a, b])

        #expect(one.prometheusText() == other.prometheusText())
        #expect(one.jsonData() == other.jsonData())
        #expect(one.series.map { "\($0.part)/\($0.scope.rawValue)" } == ["graphql/all", "rest/session", "rest/shared"])
    }

    @Test("only the set process gauges are written, and nothing at all for an empty export")
    func processGaugesOnly() throws {
        #expect(try MetricsExport(series: []).prometheusText() == "")
        let text = try MetricsExport(series: [], process: MetricsExport.ProcessGauges(sessions: 7)).prometheusText()
        #expect(text == "# HELP ucache_sessions Sessions open now.\n# TYPE ucache_sessions gauge\nucache_sessions 7\n")
    }

    @Test("duplicate series, bad part names and bad namespaces are refused")
    func refused() throws {
        let series = try MetricsExport.Series(part: "rest", statistics: rest)

        #expect(unifiedError { try MetricsExport(series: [series, series]) }?.code == .invalidMetrics)
        #expect(unifiedError { try MetricsExport(series: [], namespace: "u-cache") }?.code == .invalidMetrics)
        for part in ["", "line\nbreak", String(repeating: "p", count: 65)] {
            #expect(unifiedError { try MetricsExport.Series(part: part, statistics: rest) }?.code == .invalidMetrics)
        }
    }

    @Test("a scope kind never carries the session's identifier")
    func noSessionIdentifiers() throws {
        let scope = CacheScope.session("sess-7f3a-secret")
        let export = try MetricsExport(
            series: [try MetricsExport.Series(part: "rest", scope: .init(scope), statistics: rest)]
        )

        #expect(MetricsExport.ScopeKind(scope) == .sessions)
        #expect(MetricsExport.ScopeKind(.shared) == .shared)
        #expect(!export.prometheusText().contains("sess-7f3a-secret"))
        #expect(!String(decoding: export.jsonData(), as: UTF8.self).contains("sess-7f3a-secret"))
    }

    @Test("JSON holds each series with its rates and the totals, a part's all series not counted twice")
    func json() throws {
        let export = try MetricsExport(
            series: [
                try MetricsExport.Series(part: "rest", scope: .sessions, statistics: rest),
                try MetricsExport.Series(part: "rest", scope: .all, statistics: rest + CacheStatistics(hits: 10)),
                try MetricsExport.Series(part: "graphql", scope: .sessions, statistics: graphQL),
                try MetricsExport.Series(part: "graphql", scope: .shared, statistics: CacheStatistics(misses: 1)),
            ],
            process: MetricsExport.ProcessGauges(sessions: 3)
        )

        let document = try JSONDecoder().decode(MetricsExport.Document.self, from: export.jsonData(prettyPrinted: true))

        #expect(document == export.document)
        #expect(document.series.count == 4)
        #expect(document.totals.hits == 30 + 10 + 5)
        #expect(document.totals.misses == 10 + 5 + 1)
        #expect(document.totals.entryCount == 9 + 40)
        #expect(document.process.sessions == 3)
        let restSessions = try #require(document.series.first { $0.part == "rest" && $0.scope == .sessions })
        #expect(restSessions.hitRate == 0.75)
        #expect(restSessions.lookups == 40)
    }

    @Test("JSON of equal exports is byte for byte equal")
    func jsonStable() throws {
        let make = { () throws -> Data in
            try MetricsExport(series: [try MetricsExport.Series(part: "rest", statistics: self.rest)]).jsonData()
        }

        #expect(try make() == make())
        #expect(String(decoding: try make(), as: UTF8.self).hasPrefix(#"{"process":{},"series":[{"byteCount":4096"#))
    }
}
