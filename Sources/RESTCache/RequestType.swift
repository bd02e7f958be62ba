import Foundation

/// One REST call: what to send, how to decode the answer, and how to cache it (the NABAPICoreKit contract).
///
/// Only `Response`, `path` and (for cached calls) `cache` are required; everything else has a default.
public protocol RequestType: Sendable {
    /// The decoded success body.
    associatedtype Response: Decodable & Sendable
    /// The decoded body of an error status, when the upstream sends one.
    associatedtype ErrorBody: Decodable & Sendable = EmptyErrorBody
    /// The JSON request body.
    associatedtype Body: Encodable & Sendable = EmptyBody
    /// How the response is cached; `nil` means "not cached unless a caching rule says so".
    associatedtype Cache: Cacheable = RequestCache

    /// The method. Default: GET.
    var method: CurlHTTPClient.Method { get }
    /// The path under the service's base URL, starting with `/`.
    var path: String { get }
    /// Query items, in order. Default: none.
    var queryItems: [QueryItem] { get }
    /// Extra headers. Default: none. The session's credentials are added by the service.
    var headers: CurlHTTPClient.Headers { get }
    /// The body, encoded as JSON. Default: none.
    var body: Body? { get }
    /// The cache description. Default: none.
    var cache: Cache? { get }
    /// How cache and network are combined. Default: ``RESTCachePolicy/cacheFirst``.
    var cachePolicy: RESTCachePolicy { get }
    /// This call's resilience options (fail-safe, soft and hard timeouts, eager refresh), over its domain's and the
    /// service's (`APIService.Configuration.resilience`): set only what this call does differently. Used by the
    /// cache-first and stale-if-error policies. Default: nil (the domain's and the service's).
    var resilience: CacheResilience? { get }
}

extension RequestType {
    public var method: CurlHTTPClient.Method { .get }
    public var queryItems: [QueryItem] { [] }
    public var headers: CurlHTTPClient.Headers { [:] }
    public var cachePolicy: RESTCachePolicy { .cacheFirst }
    public var resilience: CacheResilience? { nil }
}

extension RequestType where Body == EmptyBody {
    public var body: EmptyBody? { nil }
}

extension RequestType where Cache == RequestCache {
    public var cache: RequestCache? { nil }
}

/// A query item; order is kept because some upstreams care.
public struct QueryItem: Hashable, Sendable {
    public var name: String
    public var value: String?

    public init(_ name: String, _ value: String?) {
        self.name = name
        self.value = value
    }
}

/// The body of a request that sends none.
public struct EmptyBody: Encodable, Sendable, Hashable {
    public init() {}
}

/// The error body of a request that decodes none.
public struct EmptyErrorBody: Decodable, Sendable, Hashable {
    public init() {}
    public init(from decoder: any Decoder) throws {}
}

/// A response with no meaningful body (204, or a body the caller ignores).
public struct EmptyResponse: Decodable, Sendable, Hashable {
    public init() {}
    public init(from decoder: any Decoder) throws {}
}
