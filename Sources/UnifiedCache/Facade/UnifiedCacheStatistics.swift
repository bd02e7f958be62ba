import CacheCore

/// A session's (or the hub's) statistics across both halves.
public struct UnifiedCacheStatistics: Sendable, Codable, Equatable {
    /// REST entries: hits, misses, stale hits, evictions, bytes, …
    public var rest: CacheStatistics
    /// GraphQL normalized records: reads, writes, evictions, bytes, …
    public var graphQL: CacheStatistics
    /// Records in the normalized store.
    public var graphQLRecords: Int
    /// Query timestamps kept by the GraphQL client.
    public var queryTimestamps: Int

    public init(rest: CacheStatistics, graphQL: CacheStatistics, graphQLRecords: Int, queryTimestamps: Int) {
        self.rest = rest
        self.graphQL = graphQL
        self.graphQLRecords = graphQLRecords
        self.queryTimestamps = queryTimestamps
    }

    /// Both halves added up.
    public var combined: CacheStatistics { rest + graphQL }
    /// Bytes held by both halves.
    public var bytes: Int { rest.byteCount + graphQL.byteCount }
}
