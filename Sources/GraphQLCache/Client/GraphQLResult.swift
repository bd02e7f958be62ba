import CacheCore
import GraphQLLanguage

/// Where an answer came from.
public enum GraphQLResultSource: String, Sendable, Hashable {
    /// The normalized store.
    case cache
    /// The upstream, during this call (or a call it joined).
    case network
}

/// A successful answer and what the caller needs to judge it.
public struct GraphQLResult<Data: Sendable>: Sendable {
    /// The response's `data`, decoded (or as JSON for untyped operations).
    public var data: Data
    /// Where it came from.
    public var source: GraphQLResultSource
    /// Whether a cached answer was past its time-to-live (possible with `returnCacheDataAndFetch` and
    /// `returnCacheDataDontFetch`); always false for network answers.
    public var isStale: Bool
    /// For cached answers, the time since the oldest field it reads was written; zero for network answers.
    public var age: Duration
    /// The operation name and canonical variables the answer belongs to.
    public var queryKey: GraphQLQueryKey
    /// GraphQL errors delivered with partial data, when the client is configured to deliver it; otherwise
    /// empty (an answer with errors is a `graphQLErrors` failure).
    public var errors: [GraphQLResponseError]
    /// The response's `extensions`, for network answers that had them.
    public var extensions: GraphQLJSONObject?
    /// For network answers, whether the answer was merged into the store: false for
    /// `fetchIgnoringCacheCompletely`, for partial data not configured to be cached, and when the session was
    /// cleared while the request was in flight.
    public var wasStored: Bool
    /// Why a cached answer stood in for the upstream's, when a resilience option decided it: `failSafe` (the
    /// upstream failed or timed out, or is throttled after failing), `softTimeout` (the upstream was slower than the
    /// soft timeout; its answer lands in the store later) or `eagerRefresh` (a fresh answer late in its life, whose
    /// refresh started in the background). Nil otherwise. ``isStale`` and ``age`` say how old the answer is.
    public var staleReason: CacheStaleReason?

    /// Creates a result. Inlinable: a hit's result is built in the caller, specialised for its `Data`.
    @inlinable
    public init(
        data: Data,
        source: GraphQLResultSource,
        isStale: Bool = false,
        age: Duration = .zero,
        queryKey: GraphQLQueryKey,
        errors: [GraphQLResponseError] = [],
        extensions: GraphQLJSONObject? = nil,
        wasStored: Bool = false,
        staleReason: CacheStaleReason? = nil
    ) {
        self.staleReason = staleReason
        self.data = data
        self.source = source
        self.isStale = isStale
        self.age = age
        self.queryKey = queryKey
        self.errors = errors
        self.extensions = extensions
        self.wasStored = wasStored
    }

    /// The same result with its data transformed.
    public func map<Other: Sendable>(_ transform: (Data) throws -> Other) rethrows -> GraphQLResult<Other> {
        GraphQLResult<Other>(
            data: try transform(data),
            source: source,
            isStale: isStale,
            age: age,
            queryKey: queryKey,
            errors: errors,
            extensions: extensions,
            wasStored: wasStored,
            staleReason: staleReason
        )
    }
}
