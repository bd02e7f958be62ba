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
        /// What the entries are charged to the budget now.
        var chargedBytes = 0
    }

    /// What one timestamp is charged beyond its key's text: its slot in the table (key, timestamp, document
    /// reference, variables) at the table's usual spare capacity, measured with the sessions benchmark.
    static let entryOverhead = 224

    private let limit: Int
    private let budget: MemoryBudget?
    private let state = Mutex(State())

    init(limit: Int, budget: MemoryBudget? = nil) {
        self.limit = max(1, limit)
        self.budget = budget
    }

    deinit {
        let charged = state.withLock { $0.chargedBytes }
        if charged > 0 { budget?.release(charged) }
    }

    /// What a timestamp of `key` is charged: the fixed overhead, the key's text, and its variables once more (the
    /// object the entry keeps for selective clears is about the size of their canonical text).
    static func chargedBytes(of key: GraphQLQueryKey) -> Int {
        entryOverhead + key.operationName.utf8.count + 2 * key.canonicalVariables.utf8.count
    }

    /// Notes that a query's answer was stored now. A new timestamp is charged to the budget (which makes room
    /// past its limit, outside the lock); one forgotten or replaced is released.
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
        let charged = budget == nil ? 0 : Self.chargedBytes(of: request.queryKey)
        let delta = state.withLock { state -> Int in
            var delta = 0
            if state.entries.updateValue(entry, forKey: request.queryKey) == nil {
                delta += charged
            }
            if state.entries.count > limit {
                // Over the limit: forget the oldest eighth at once, so the sort is rare.
                let oldest = state.entries.values.sorted { $0.timestamp.fetchedAt < $1.timestamp.fetchedAt }
                for entry in oldest.prefix(max(1, limit / 8)) {
                    state.entries[entry.timestamp.queryKey] = nil
                    delta -= budget == nil ? 0 : Self.chargedBytes(of: entry.timestamp.queryKey)
                }
            }
            state.chargedBytes += delta
            return delta
        }
        guard let budget, delta != 0 else { return }
        if delta > 0 {
            budget.chargeAndReclaim(delta)
        } else {
            budget.release(-delta)
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
        let (count, released) = state.withLock { state in
            let count = state.entries.count
            let released = state.chargedBytes
            state.entries.removeAll()
            state.chargedBytes = 0
            state.staleBefore = instant
            return (count, released)
        }
        if released > 0 { budget?.release(released) }
        return count
    }

    /// Forgets the timestamps `shouldRemove` selects and returns them.
    func remove(where shouldRemove: (GraphQLQueryKey, Entry) -> Bool) -> [Entry] {
        let charges = budget != nil
        let (removed, released) = state.withLock { state in
            let selected = state.entries.filter { shouldRemove($0.key, $0.value) }
            var released = 0
            for key in selected.keys {
                state.entries[key] = nil
                released += charges ? Self.chargedBytes(of: key) : 0
            }
            state.chargedBytes -= released
            return (Array(selected.values), released)
        }
        if released > 0 { budget?.release(released) }
        return removed
    }

    /// What the timestamps are charged to the budget now (0 without one).
    var chargedBytes: Int {
        state.withLock { $0.chargedBytes }
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
