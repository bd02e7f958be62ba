import CacheCore

/// Cache statistics labelled by part, ready to be served as JSON or scraped by Prometheus.
///
/// Labels are deliberately few and fixed: the part of the cache (`rest`, `graphql`, …) and the kind of scope
/// (`session` — all sessions together —, `shared`, or `all`). There is no label for a session, a user or an
/// account: a BFF holds millions of sessions over a day, and a label per session would make a time series per
/// person (the cardinality explosion that takes Prometheus down) and put identifiers of people in a monitoring
/// system. Per-session numbers stay available through the session's own statistics.
public struct MetricsExport: Equatable, Sendable {
    /// Which scopes a series adds up.
    public enum ScopeKind: String, Hashable, Sendable, Codable, CaseIterable {
        /// Every session scope of the process together.
        case sessions = "session"
        /// The shared scope (public data).
        case shared
        /// Sessions and shared together.
        case all

        /// The kind of a scope, without its identifier.
        public init(_ scope: CacheScope) {
            switch scope {
            case .session: self = .sessions
            case .shared: self = .shared
            }
        }
    }

    /// The statistics of one part and scope kind.
    public struct Series: Equatable, Sendable {
        /// The part of the cache, e.g. `rest` or `graphql`.
        public let part: String
        public let scope: ScopeKind
        public let statistics: CacheStatistics

        /// - Throws: `.invalidMetrics` when `part` is empty, longer than 64 characters or has control characters
        ///   (which no escaping makes readable on a dashboard).
        public init(part: String, scope: ScopeKind = .all, statistics: CacheStatistics) throws(UnifiedCacheError) {
            guard !part.isEmpty, part.count <= 64, !part.unicodeScalars.contains(where: { $0.value < 0x20 }) else {
                throw UnifiedCacheError(
                    code: .invalidMetrics,
                    message: "a part name must be 1 to 64 characters without control characters, got "
                        + NameRules.quoted(part),
                    place: "part"
                )
            }
            self.part = part
            self.scope = scope
            self.statistics = statistics
        }
    }

    /// Gauges of the process as a whole; a gauge left `nil` is not exported.
    public struct ProcessGauges: Hashable, Sendable, Codable {
        /// The process memory budget's limit in bytes.
        public var memoryBudgetBytes: Int?
        /// Bytes charged against the budget now.
        public var memoryUsedBytes: Int?
        /// Sessions open now.
        public var sessions: Int?
        /// Sessions started since the process began (a counter).
        public var sessionsCreated: Int?
        /// Sessions ended since the process began, by reason (`logout`, `sessionExpired`, `sessionEvicted`,
        /// `principalChanged`, `memoryPressure`): counters labelled `reason`.
        public var sessionsEnded: [String: Int]?

        public init(
            memoryBudgetBytes: Int? = nil,
            memoryUsedBytes: Int? = nil,
            sessions: Int? = nil,
            sessionsCreated: Int? = nil,
            sessionsEnded: [String: Int]? = nil
        ) {
            self.memoryBudgetBytes = memoryBudgetBytes
            self.memoryUsedBytes = memoryUsedBytes
            self.sessions = sessions
            self.sessionsCreated = sessionsCreated
            self.sessionsEnded = sessionsEnded
        }
    }

    /// The content type of ``prometheusText()``, for the HTTP answer to a scrape.
    public static let prometheusContentType = "text/plain; version=0.0.4; charset=utf-8"

    /// The series, sorted by part and then scope kind, so that output is stable from one scrape to the next.
    public let series: [Series]
    public let process: ProcessGauges
    /// The prefix of every metric name. Default `ucache`.
    public let namespace: String

    /// - Throws: `.invalidMetrics` when two series have the same part and scope kind (Prometheus refuses duplicate
    ///   samples) or `namespace` is not a metric name (`[a-zA-Z_][a-zA-Z0-9_]*`).
    public init(series: [Series], process: ProcessGauges = ProcessGauges(), namespace: String = "ucache")
        throws(UnifiedCacheError)
    {
        guard NameRules.isGraphQLName(namespace) else {
            throw UnifiedCacheError(
                code: .invalidMetrics,
                message: "a metrics namespace must match [a-zA-Z_][a-zA-Z0-9_]*, got \(NameRules.quoted(namespace))",
                place: "namespace"
            )
        }
        let sorted = series.sorted { ($0.part, $0.scope.rawValue) < ($1.part, $1.scope.rawValue) }
        for (first, second) in zip(sorted, sorted.dropFirst())
        where first.part == second.part && first.scope == second.scope {
            throw UnifiedCacheError(
                code: .invalidMetrics,
                message: "two series for part \(NameRules.quoted(first.part)) and scope \(first.scope.rawValue)",
                place: "series"
            )
        }
        self.series = sorted
        self.process = process
        self.namespace = namespace
    }

    /// The process's totals: for each part its `all` series, or its `session` and `shared` series added up when it
    /// has no `all` series (so a part exported both ways is not counted twice).
    public var totals: CacheStatistics {
        let partsWithAll = Set(series.filter { $0.scope == .all }.map(\.part))
        return series.reduce(CacheStatistics()) { total, series in
            series.scope == .all || !partsWithAll.contains(series.part) ? total + series.statistics : total
        }
    }
}
