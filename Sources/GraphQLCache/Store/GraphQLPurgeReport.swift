/// What ``GraphQLNormalizedStore/purgeRecords(writtenBefore:)`` removed.
import GraphQLLanguage

public struct GraphQLPurgeReport: Sendable, Hashable {
    /// Records removed because none of their fields was written at or after the cutoff.
    public var records: Int
    /// Bytes released (as charged).
    public var bytes: Int
    /// Scopes dropped because they held no records.
    public var droppedScopes: Int
    /// Scopes the purge looked at: those with a record written before the cutoff (or left empty), never the
    /// whole store. The measure of a purge's cost, with ``records``.
    public var scopesVisited: Int

    /// Creates a report.
    public init(records: Int, bytes: Int, droppedScopes: Int, scopesVisited: Int = 0) {
        self.records = records
        self.bytes = bytes
        self.droppedScopes = droppedScopes
        self.scopesVisited = scopesVisited
    }
}
