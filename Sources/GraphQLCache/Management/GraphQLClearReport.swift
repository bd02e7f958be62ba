import CacheCore
import GraphQLLanguage

/// What a GraphQL clear removed: records, fields, bytes and query timestamps.
public struct GraphQLClearReport: Sendable, Hashable {
    /// What the clear was asked to remove.
    public enum Target: Sendable, Hashable {
        /// The whole session.
        case all
        /// One account's data.
        case account(String)
        /// A query key's text or an operation name.
        case query(String)
        /// Every record of a type.
        case typename(String)
        /// Records whose keys match a glob.
        case pattern(String)
        /// One record.
        case record(String)
        /// One field of every record of a type.
        case field(typename: String, field: String)
        /// Unreachable records.
        case garbage
        /// Query timestamps only.
        case timestamps
    }

    /// The session.
    public var scope: CacheScope
    /// What was asked.
    public var target: Target
    /// Why.
    public var reason: ClearReason
    /// Records removed.
    public var records: Int
    /// Fields removed, those of removed records included.
    public var fields: Int
    /// Bytes released (as charged).
    public var bytes: Int
    /// Keys of the removed records (empty for a whole-session clear, which does not list them).
    public var removedRecordKeys: [String]
    /// Query timestamps forgotten.
    public var timestamps: Int
    /// How long the clear took.
    public var duration: Duration

    /// Creates a report.
    public init(
        scope: CacheScope,
        target: Target,
        reason: ClearReason,
        records: Int = 0,
        fields: Int = 0,
        bytes: Int = 0,
        removedRecordKeys: [String] = [],
        timestamps: Int = 0,
        duration: Duration = .zero
    ) {
        self.scope = scope
        self.target = target
        self.reason = reason
        self.records = records
        self.fields = fields
        self.bytes = bytes
        self.removedRecordKeys = removedRecordKeys
        self.timestamps = timestamps
        self.duration = duration
    }

    /// Whether nothing was removed.
    public var isEmpty: Bool {
        records == 0 && fields == 0 && timestamps == 0
    }

    /// Adds what the store removed.
    mutating func add(_ eviction: GraphQLEvictionReport) {
        records += eviction.records
        fields += eviction.fields
        bytes += eviction.bytes
        duration += eviction.duration
    }
}

extension GraphQLClearReport.Target: CustomStringConvertible {
    /// Account ids and query keys are fingerprinted: they name customers.
    public var description: String {
        switch self {
        case .all: "all"
        case .account(let id): "account(#\(CacheScope.fingerprint(of: id)))"
        case .query(let query): "query(#\(CacheScope.fingerprint(of: query)))"
        case .typename(let typename): "typename(\(typename))"
        case .pattern(let pattern): "pattern(\(pattern))"
        case .record(let key): "record(#\(CacheScope.fingerprint(of: key)))"
        case .field(let typename, let field): "field(\(typename).\(field))"
        case .garbage: "garbage"
        case .timestamps: "timestamps"
        }
    }
}

extension GraphQLClearReport: CustomStringConvertible {
    /// Counts only; record keys may name accounts.
    public var description: String {
        "cleared GraphQL \(target) in \(scope) (\(reason)): \(records) records, \(fields) fields, \(bytes) bytes, "
            + "\(timestamps) timestamps, \(duration)"
    }
}
