/// Something that happened around the cache but outside the store, reported so statistics and events cover it.
///
/// Only RESTCache and GraphQLCache see the network; reporting through the store keeps one set of numbers per
/// scope for both halves instead of two that never add up.
public enum CacheActivity: Sendable, Hashable {
    /// An upstream call made for `key` (a cache key or a GraphQL operation name). `status` is the HTTP status, or
    /// `nil` when no response arrived (connect failure, timeout, cancellation).
    case networkFetch(key: String, status: Int?, duration: Duration)
    /// A request for `key` that waited for an identical in-flight call instead of making its own.
    case deduplicatedJoin(key: String)
}
