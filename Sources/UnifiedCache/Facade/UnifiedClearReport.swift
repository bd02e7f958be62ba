import CacheCore

/// What one clearing call removed, part by part (REST, GraphQL, timestamps, cookies), and what failed.
///
/// A clear never stops at the first failing part: logout must remove everything it can. The report says which
/// parts failed so the caller can log or retry them.
public struct UnifiedClearReport: Sendable, CustomStringConvertible {
    /// One part of a clear.
    public struct Part: Sendable, Equatable {
        /// `rest`, `graphql`, `timestamps`, `cookies` or `inFlight`.
        public var name: String
        /// REST entries removed.
        public var entries: Int = 0
        /// GraphQL records removed.
        public var records: Int = 0
        /// GraphQL fields evicted (from records that stay).
        public var fields: Int = 0
        /// Bytes released.
        public var bytes: Int = 0
        /// Upstream cookies forgotten.
        public var cookies: Int = 0
        /// GraphQL query timestamps forgotten.
        public var timestamps: Int = 0
        /// How long the part took.
        public var duration: Duration = .zero
        /// Why the part failed, if it did (never contains cached values).
        public var failure: String?

        public init(name: String) { self.name = name }
    }

    /// The method that cleared, e.g. `clearBalancesCache()`.
    public var operation: String
    /// Why it cleared.
    public var reason: ClearReason
    /// Each part, in the order it ran.
    public var parts: [Part]
    /// The whole call.
    public var duration: Duration

    public init(operation: String, reason: ClearReason, parts: [Part] = [], duration: Duration = .zero) {
        self.operation = operation
        self.reason = reason
        self.parts = parts
        self.duration = duration
    }

    /// The parts that failed.
    public var failures: [Part] { parts.filter { $0.failure != nil } }
    /// Whether every part succeeded.
    public var succeeded: Bool { failures.isEmpty }
    /// REST entries removed in total.
    public var entries: Int { parts.reduce(0) { $0 + $1.entries } }
    /// GraphQL records removed in total.
    public var records: Int { parts.reduce(0) { $0 + $1.records } }
    /// GraphQL fields evicted in total.
    public var fields: Int { parts.reduce(0) { $0 + $1.fields } }
    /// Bytes released in total.
    public var bytes: Int { parts.reduce(0) { $0 + $1.bytes } }
    /// GraphQL query timestamps forgotten in total.
    public var timestamps: Int { parts.reduce(0) { $0 + $1.timestamps } }
    /// Upstream cookies forgotten in total.
    public var cookies: Int { parts.reduce(0) { $0 + $1.cookies } }

    public var description: String {
        let partsText = parts.map { part in
            "\(part.name): \(part.entries) entries, \(part.records) records, \(part.fields) fields, \(part.bytes) B"
                + (part.failure.map { " FAILED (\($0))" } ?? "")
        }.joined(separator: "; ")
        return "\(operation) [\(reason)] in \(duration): \(partsText)"
    }
}

/// Runs the parts of a clear, timing each, and keeps going when one fails.
struct ClearRun: Sendable {
    private let clock = ContinuousClock()
    private let started: ContinuousClock.Instant
    private(set) var report: UnifiedClearReport

    init(_ operation: String, reason: ClearReason) {
        started = clock.now
        report = UnifiedClearReport(operation: operation, reason: reason)
    }

    mutating func part(_ name: String, _ body: (inout UnifiedClearReport.Part) throws -> Void) {
        var part = UnifiedClearReport.Part(name: name)
        let begin = clock.now
        do {
            try body(&part)
        } catch {
            part.failure = String(describing: error)
        }
        part.duration = clock.now - begin
        report.parts.append(part)
    }

    mutating func part(_ name: String, _ body: (inout UnifiedClearReport.Part) async throws -> Void) async {
        var part = UnifiedClearReport.Part(name: name)
        let begin = clock.now
        do {
            try await body(&part)
        } catch {
            part.failure = String(describing: error)
        }
        part.duration = clock.now - begin
        report.parts.append(part)
    }

    func finished() -> UnifiedClearReport {
        var report = report
        report.duration = clock.now - started
        return report
    }
}
