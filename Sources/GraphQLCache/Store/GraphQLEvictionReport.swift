/// What an eviction took out of a scope.
import GraphQLLanguage

public struct GraphQLEvictionReport: Sendable, Hashable {
    /// Records removed.
    public var records: Int
    /// Fields removed: those of the removed records plus fields removed from records that stay.
    public var fields: Int
    /// Bytes released (as charged).
    public var bytes: Int
    /// Keys of the records removed, or of the records that lost fields for a field eviction. Empty for a whole
    /// scope clear, which does not list what it drops.
    public var recordKeys: [String]
    /// How long the eviction took for the caller.
    public var duration: Duration

    /// Creates a report.
    public init(records: Int, fields: Int, bytes: Int, recordKeys: [String], duration: Duration) {
        self.records = records
        self.fields = fields
        self.bytes = bytes
        self.recordKeys = recordKeys
        self.duration = duration
    }

    /// Nothing was removed.
    public static let empty = GraphQLEvictionReport(records: 0, fields: 0, bytes: 0, recordKeys: [], duration: .zero)
}
