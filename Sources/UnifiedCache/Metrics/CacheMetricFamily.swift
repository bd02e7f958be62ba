import CacheCore

/// One metric of the hub (a counter, a gauge or a summary) with its series, as values: what
/// ``CacheHub/metricFamilies()`` returns and ``CacheHub/metricsText()`` renders.
///
/// An integration reads these to feed a metrics backend (swift-metrics' counters and gauges) without parsing text;
/// the Prometheus exposition is written from the same values, so both always agree. Names carry the namespace
/// (`ucache_hits_total`); label values are snake_case and of bounded cardinality (part, scope kind, reason), never a
/// session id, principal or account.
public struct CacheMetricFamily: Hashable, Sendable {
    /// The Prometheus type of the family.
    public enum Kind: String, Hashable, Sendable {
        /// Only goes up (named `…_total`).
        case counter
        /// Goes up and down.
        case gauge
        /// A sum and a count (`…_sum`, `…_count`), for a mean.
        case summary
    }

    /// A label of a sample: a name and a value.
    public struct Label: Hashable, Sendable {
        public var name: String
        public var value: String

        public init(_ name: String, _ value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A sample's number: integers stay integers in the exposition.
    public enum Value: Hashable, Sendable {
        case int(Int)
        case double(Double)

        /// The value as a `Double`, for a backend.
        public var doubleValue: Double {
            switch self {
            case .int(let value): return Double(value)
            case .double(let value): return value
            }
        }

        var exposition: String {
            switch self {
            case .int(let value): return String(value)
            case .double(let value): return String(value)
            }
        }
    }

    /// One series of the family.
    public struct Sample: Hashable, Sendable {
        /// The family's name, or for a summary the family's followed by `_sum` or `_count`.
        public var name: String
        public var labels: [Label]
        public var value: Value

        public init(name: String, labels: [Label] = [], value: Value) {
            self.name = name
            self.labels = labels
            self.value = value
        }
    }

    /// The metric's name, with the namespace (`ucache_l2_hits_total`).
    public var name: String
    /// What it counts, for `# HELP`.
    public var help: String
    public var kind: Kind
    public var samples: [Sample]

    public init(name: String, help: String, kind: Kind, samples: [Sample]) {
        self.name = name
        self.help = help
        self.kind = kind
        self.samples = samples
    }

    /// A family with one unlabelled sample.
    static func single(_ name: String, help: String, kind: Kind, value: Int) -> CacheMetricFamily {
        CacheMetricFamily(name: name, help: help, kind: kind, samples: [Sample(name: name, value: .int(value))])
    }

    /// Unlabelled counters, one per `(name, help, value)`, each named `<prefix>_<name>_total`.
    static func counters(prefix: String, _ counters: [(String, String, Int)]) -> [CacheMetricFamily] {
        counters.map { name, help, value in single("\(prefix)_\(name)_total", help: help, kind: .counter, value: value)
        }
    }

    /// A counter family labelled `reason`, one sample per `(reason, count)`; reasons in snake_case.
    static func byReason(_ name: String, help: String, _ counts: [(String, Int)]) -> CacheMetricFamily {
        CacheMetricFamily(
            name: name, help: help, kind: .counter,
            samples: counts.map { reason, count in
                Sample(name: name, labels: [Label("reason", CacheLabelCase.snake(reason))], value: .int(count))
            })
    }
}

extension CacheMetricFamily {
    /// The families in the Prometheus text exposition format (0.0.4): each with its `# HELP` and `# TYPE` lines,
    /// then its samples in order.
    public static func prometheusText(_ families: [CacheMetricFamily]) -> String {
        var text = ""
        for family in families {
            family.write(into: &text)
        }
        return text
    }

    func write(into text: inout String) {
        text += "# HELP " + name + " " + MetricsExport.escapeHelp(help) + "\n"
        text += "# TYPE " + name + " " + kind.rawValue + "\n"
        for sample in samples {
            text += sample.name
            if !sample.labels.isEmpty {
                text += "{"
                for (index, label) in sample.labels.enumerated() {
                    if index > 0 { text += "," }
                    text += label.name + "=\"" + MetricsExport.escapeLabelValue(label.value) + "\""
                }
                text += "}"
            }
            text += " " + sample.value.exposition + "\n"
        }
    }
}
