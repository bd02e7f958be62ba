import CacheCore

extension MetricsExport {
    /// One metric family of the exposition: name (without the namespace), help, type and how to read the value.
    private struct Family {
        enum Kind: String {
            case counter
            case gauge
        }

        let name: String
        let help: String
        let kind: Kind
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
    /// ``prometheusContentType``).
    ///
    /// Each family has its `# HELP` and `# TYPE` line and one sample per series, labelled `part` and `scope`;
    /// families come in a fixed order and samples sorted by part then scope, so two scrapes of equal statistics
    /// are byte for byte equal. Rates are not exported: compute them from the counters (`rate()`), which stays
    /// right across restarts and aggregations. Process gauges follow when set.
    public func prometheusText() -> String {
        var text = ""
        if !series.isEmpty {
            for family in Self.families {
                let name = namespace + "_" + family.name
                writeHeader(name: name, help: family.help, kind: family.kind, into: &text)
                for entry in series {
                    text +=
                        name + "{part=\"" + Self.escapeLabelValue(entry.part) + "\",scope=\""
                        + entry.scope.rawValue + "\"} " + String(family.value(entry.statistics)) + "\n"
                }
            }
        }
        let gauges: [(String, String, Int?)] = [
            ("memory_budget_bytes", "The process memory budget's limit in bytes.", process.memoryBudgetBytes),
            ("memory_used_bytes", "Bytes charged against the process memory budget.", process.memoryUsedBytes),
            ("sessions", "Sessions open now.", process.sessions),
        ]
        for case (let suffix, let help, let value?) in gauges {
            let name = namespace + "_" + suffix
            writeHeader(name: name, help: help, kind: .gauge, into: &text)
            text += name + " " + String(value) + "\n"
        }
        if let created = process.sessionsCreated {
            let name = namespace + "_sessions_created_total"
            writeHeader(name: name, help: "Sessions started.", kind: .counter, into: &text)
            text += name + " " + String(created) + "\n"
        }
        if let ended = process.sessionsEnded {
            let name = namespace + "_sessions_ended_total"
            writeHeader(name: name, help: "Sessions ended, by reason.", kind: .counter, into: &text)
            for reason in Self.sessionEndReasons.union(ended.keys).sorted() {
                text +=
                    name + "{reason=\"" + Self.escapeLabelValue(reason) + "\"} " + String(ended[reason, default: 0])
                    + "\n"
            }
        }
        return text
    }

    /// Reasons always exported (as 0 until they happen), so dashboards and alerts find every series.
    static let sessionEndReasons: Set<String> = [
        "logout", "sessionExpired", "sessionEvicted", "principalChanged", "memoryPressure",
    ]

    private func writeHeader(name: String, help: String, kind: Family.Kind, into text: inout String) {
        text += "# HELP " + name + " " + Self.escapeHelp(help) + "\n"
        text += "# TYPE " + name + " " + kind.rawValue + "\n"
    }

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
