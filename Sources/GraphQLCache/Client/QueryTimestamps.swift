import CacheCore
import GraphQLLanguage
import Synchronization

/// When a query was last fetched from the network and stored (the seed's timestamp cache entry).
public struct GraphQLQueryTimestamp: Sendable, Hashable {
    /// The query.
    public var queryKey: GraphQLQueryKey
    /// When its answer was stored, on the store's clock.
    public var fetchedAt: CacheInstant
    /// The timeout the call asked for (explicit, else the query type's, else `.useDefault`).
    public var requestedTimeout: QueryCacheTimeout

    /// Creates a timestamp.
    public init(queryKey: GraphQLQueryKey, fetchedAt: CacheInstant, requestedTimeout: QueryCacheTimeout) {
        self.queryKey = queryKey
        self.fetchedAt = fetchedAt
        self.requestedTimeout = requestedTimeout
    }
}

/// The client's query timestamps, by query key, and the instant before which cached answers count as stale
/// since timestamps were last cleared.
///
/// Freshness itself is decided on the write times of the fields an answer reads (so another query's fetch of
/// the same objects refreshes it too); the timestamps say which queries this client stored, which is what a
/// query-level clear needs, and carry the "forget everything so far" mark of `clearTimestamps()`.
///
/// A non-copyable value held inside the session's `GraphQLClientState`, not an object of its own.
struct QueryTimestamps: ~Copyable, Sendable {
    struct Entry: Sendable {
        var timestamp: GraphQLQueryTimestamp
        var document: PreparedDocument
        var variables: GraphQLJSONObject
    }

    /// Internal rather than private: a private type nested in this non-copyable struct crashes the Swift 6.3.1
    /// compiler (LLVM verifier, metadata of `State`) when the client is compiled.
    struct State: Sendable {
        var entries: [GraphQLQueryKey: Entry] = [:]
        /// Answers whose oldest field was written at or before this are stale, unless their query was fetched
        /// since (it then has an entry again).
        var staleBefore: CacheInstant?
    }

    private let limit: Int
    private let state = Mutex(State())

    init(limit: Int) {
        self.limit = max(1, limit)
    }

    /// Notes that a query's answer was stored now.
    func record(_ request: PreparedRequest, at instant: CacheInstant) {
        let entry = Entry(
            timestamp: GraphQLQueryTimestamp(
                queryKey: request.queryKey,
                fetchedAt: instant,
                requestedTimeout: request.requestedTimeout
            ),
            document: request.document,
            variables: request.variables
        )
        let limit = limit
        state.withLock { state in
            state.entries[request.queryKey] = entry
            guard state.entries.count > limit else {
                return
            }
            // Over the limit: forget the oldest eighth at once, so the sort is rare.
            let oldest = state.entries.values.sorted { $0.timestamp.fetchedAt < $1.timestamp.fetchedAt }
            for entry in oldest.prefix(max(1, limit / 8)) {
                state.entries[entry.timestamp.queryKey] = nil
            }
        }
    }

    /// The instant a query's cached answer must be newer than, if timestamps were cleared and the query was
    /// not fetched since.
    func staleBefore(for key: GraphQLQueryKey) -> CacheInstant? {
        state.withLock { state in
            guard let staleBefore = state.staleBefore, state.entries[key] == nil else {
                return nil
            }
            return staleBefore
        }
    }

    /// Forgets every timestamp; with an instant, answers written until then become stale.
    func removeAll(staleBefore instant: CacheInstant?) -> Int {
        state.withLock { state in
            let count = state.entries.count
            state.entries.removeAll()
            state.staleBefore = instant
            return count
        }
    }

    /// Forgets the timestamps `shouldRemove` selects and returns them.
    func remove(where shouldRemove: (GraphQLQueryKey, Entry) -> Bool) -> [Entry] {
        state.withLock { state in
            let selected = state.entries.filter { shouldRemove($0.key, $0.value) }
            for key in selected.keys {
                state.entries[key] = nil
            }
            return Array(selected.values)
        }
    }

    /// How many timestamps are kept.
    var count: Int {
        state.withLock { $0.entries.count }
    }

    /// Every timestamp, oldest first.
    func snapshot() -> [GraphQLQueryTimestamp] {
        state.withLock { state in state.entries.values.map(\.timestamp) }
            .sorted { ($0.fetchedAt, $0.queryKey) < ($1.fetchedAt, $1.queryKey) }
    }
}
