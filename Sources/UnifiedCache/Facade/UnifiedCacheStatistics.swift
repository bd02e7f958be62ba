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
    /// Reads answered from what sessions share (the hub's statistics only; 0 for a session's): hits of REST's
    /// shared scope and GraphQL queries answered with another session's `PUBLIC` answer.
    public var sharedHits: Int

    public init(
        rest: CacheStatistics, graphQL: CacheStatistics, graphQLRecords: Int, queryTimestamps: Int, sharedHits: Int = 0
    ) {
        self.rest = rest
        self.graphQL = graphQL
        self.graphQLRecords = graphQLRecords
        self.queryTimestamps = queryTimestamps
        self.sharedHits = sharedHits
    }

    /// Both halves added up.
    public var combined: CacheStatistics { rest + graphQL }
    /// Bytes held by both halves.
    public var bytes: Int { rest.byteCount + graphQL.byteCount }
}
