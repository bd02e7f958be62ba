import CacheCore
import GraphQLLanguage

/// The answer of a read: the data in the operation's shape, or why the cache cannot give it.
public enum GraphQLReadResult<Value> {
    /// Every selected field was cached.
    case hit(GraphQLCacheHit<Value>)
    /// At least one selected field (or a record it leads to) is not cached; nothing partial is returned.
    case miss(GraphQLCacheMiss)

    /// The data, on a hit.
    public var value: Value? {
        if case .hit(let hit) = self {
            return hit.data
        }
        return nil
    }

    /// The miss, when there is one.
    public var missValue: GraphQLCacheMiss? {
        if case .miss(let miss) = self {
            return miss
        }
        return nil
    }
}

extension GraphQLReadResult: Sendable where Value: Sendable {}

/// A complete answer from the cache, with what a caller needs to judge its freshness.
public struct GraphQLCacheHit<Value> {
    /// The data: a `GraphQLJSONObject` shaped like the response (aliases restored), or the caller's type.
    public var data: Value
    /// Every record the read went through, root included: a change to any of them changes the answer.
    public var touchedRecordKeys: Set<String>
    /// The oldest write time among the fields read (`nil` when the selection read no field): the age of the
    /// answer for a per-query time-to-live.
    public var oldestWrite: CacheInstant?
    /// The oldest write time among the fields read, per record typename (records without a typename under
    /// `""`), for per-type time-to-live rules. Fields gathered per coordinate (see
    /// ``oldestWriteByCoordinate``) do not count here.
    public var oldestWriteByTypename: [String: CacheInstant]
    /// The oldest write time per schema coordinate (`Account.balance`), only for the fields a reader asked to
    /// keep apart from their type (the GraphQL client does so for fields with a time-to-live of their own);
    /// empty otherwise.
    public var oldestWriteByCoordinate: [String: CacheInstant]
    /// The earliest instant an upstream `maxAge` (``GraphQLRecordField/upstreamMaxAge``) ends for a field read,
    /// among the fields whose freshness the hint decides; `nil` when none has one. Such fields count for
    /// ``oldestWrite`` but not for ``oldestWriteByTypename``. (The GraphQL client's reads leave out fields with a
    /// local rule, which comes first; the store's public reads know no rules and include every hinted field.)
    public var upstreamExpiry: CacheInstant?

    /// Creates a hit.
    public init(
        data: Value,
        touchedRecordKeys: Set<String>,
        oldestWrite: CacheInstant?,
        oldestWriteByTypename: [String: CacheInstant],
        oldestWriteByCoordinate: [String: CacheInstant] = [:],
        upstreamExpiry: CacheInstant? = nil
    ) {
        self.data = data
        self.touchedRecordKeys = touchedRecordKeys
        self.oldestWrite = oldestWrite
        self.oldestWriteByTypename = oldestWriteByTypename
        self.oldestWriteByCoordinate = oldestWriteByCoordinate
        self.upstreamExpiry = upstreamExpiry
    }
}

extension GraphQLCacheHit: Sendable where Value: Sendable {}

/// Why a read could not be answered from the cache, and where.
public struct GraphQLCacheMiss: Sendable, Hashable {
    /// What was missing.
    public enum Reason: Sendable, Hashable {
        /// The record has no such field (never written with these arguments, or evicted).
        case missingField
        /// A reference leads to a record that is gone (evicted or removed), named here.
        case missingRecord(String)
        /// A fragment's type condition must be decided but the record's typename was never written.
        case missingTypename
        /// The stored value does not fit the selection (a scalar where objects are selected, or the reverse).
        case unexpectedValue
    }

    /// The first missing place as response keys and list indices (`accounts.0.balance`).
    public var path: String
    /// What was missing there.
    public var reason: Reason
    /// The records the read went through before it stopped.
    public var touchedRecordKeys: Set<String>

    /// Creates a miss.
    public init(path: String, reason: Reason, touchedRecordKeys: Set<String>) {
        self.path = path
        self.reason = reason
        self.touchedRecordKeys = touchedRecordKeys
    }
}
