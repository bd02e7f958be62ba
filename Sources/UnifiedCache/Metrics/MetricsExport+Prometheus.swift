import CacheCore

extension MetricsExport {
    /// One metric family of the exposition: name (without the namespace), help, type and how to read the value.
    private struct Family {
        let name: String
        let help: String
        let kind: CacheMetricFamily.Kind
        let value: @Sendable (CacheStatistics) -> Int
    }

    /// The families in the order they are written; counters end in `_total` as the format's conventions ask.
    private static let families: [Family] = [
        Family(name: "hits_total", help: "Lookups answered with a fresh entry.", kind: .counter) { $0.hits },
        Family(name: "stale_hits_total", help: "Lookups answered with an expired entry.", kind: .counter) {
            $0.staleHits
        },
        Family(name: "misses_total", help: "Lookups that found nothing.", kind: .counter) { $0.misses },
        Family(name: "inserts_total", help: "Values stored (new keys and replacements).", kind: .counter) {
            $0.inserts
        },
        Family(
            name: "evictions_total", help: "Entries removed to respect count, byte or memory limits.", kind: .counter
        ) {
            $0.evictions
        },
        Family(name: "expirations_total", help: "Expired entries purged.", kind: .counter) { $0.expirations },
        Family(name: "network_fetches_total", help: "Upstream calls made.", kind: .counter) { $0.networkFetches },
        Family(
            name: "deduplicated_joins_total",
            help: "Requests that joined an identical upstream call in flight.",
            kind: .counter
        ) { $0.deduplicatedJoins },
        Family(name: "entries", help: "Entries held now.", kind: .gauge) { $0.entryCount },
        Family(name: "bytes", help: "Bytes held now (payload, key and per-entry overhead).", kind: .gauge) {
            $0.byteCount
        },
    ]

    /// The statistics in the Prometheus text exposition format, version 0.0.4 (serve it with
    /// ``prometheusContentType``): ``metricFamilies()`` rendered.
    ///
    /// Each family has its `# HELP` and `# TYPE` line and one sample per series, labelled `part` and `scope`;
    /// families come in a fixed order and samples sorted by part then scope, so two scrapes of equal statistics
    /// are byte for byte equal. Rates are not exported: compute them from the counters (`rate()`), which stays
    /// right across restarts and aggregations. Process gauges follow when set.
    public func prometheusText() -> String {
        CacheMetricFamily.prometheusText(metricFamilies())
    }

    /// The statistics as metric families (counters and gauges), in the order ``prometheusText()`` writes them;
    /// session-end reasons in snake_case (`session_expired`).
    public func metricFamilies() -> [CacheMetricFamily] {
        var families: [CacheMetricFamily] = []
        if !series.isEmpty {
            for family in Self.families {
                let name = namespace + "_" + family.name
                families.append(
                    CacheMetricFamily(
                        name: name, help: family.help, kind: family.kind,
                        samples: series.map { entry in
                            CacheMetricFamily.Sample(
                                name: name,
                                labels: [.init("part", entry.part), .init("scope", entry.scope.rawValue)],
                                value: .int(family.value(entry.statistics)))
                        }))
            }
        }
        let gauges: [(String, String, Int?)] = [
            ("memory_budget_bytes", "The process memory budget's limit in bytes.", process.memoryBudgetBytes),
            ("memory_used_bytes", "Bytes charged against the process memory budget.", process.memoryUsedBytes),
            ("sessions", "Sessions open now.", process.sessions),
        ]
        for case (let suffix, let help, let value?) in gauges {
            families.append(.single(namespace + "_" + suffix, help: help, kind: .gauge, value: value))
        }
        if let created = process.sessionsCreated {
            families.append(
                .single(
                    namespace + "_sessions_created_total", help: "Sessions started.", kind: .counter, value: created))
        }
        if let ended = process.sessionsEnded {
            var counts: [String: Int] = [:]
            for reason in Self.sessionEndReasons { counts[reason] = 0 }
            for (reason, count) in ended { counts[CacheLabelCase.snake(reason), default: 0] += count }
            families.append(
                .byReason(
                    namespace + "_sessions_ended_total", help: "Sessions ended, by reason.",
                    counts.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }))
        }
        return families
    }

    /// Reasons always exported (as 0 until they happen), so dashboards and alerts find every series.
    static let sessionEndReasons: Set<String> = [
        "logout", "session_expired", "session_evicted", "principal_changed", "memory_pressure",
    ]

    /// Label values escape backslash, double quote and line feed (`\\`, `\"`, `\n`), as the format requires.
    static func escapeLabelValue(_ value: String) -> String {
        var escaped = ""
        escaped.reserveCapacity(value.utf8.count)
        for character in value {
            switch character {
            case "\\": escaped += "\\\\"
            case "\"": escaped += "\\\""
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }

    /// Help text escapes backslash and line feed only.
    static func escapeHelp(_ help: String) -> String {
        var escaped = ""
        for character in help {
            switch character {
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}
