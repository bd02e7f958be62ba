import CacheCore
import Foundation

extension APIService {
    /// How a service caches, invalidates and decodes. Every field has a documented default.
    public struct Configuration: Sendable {
        /// Honour the upstream's `Cache-Control` (`no-store`, `private`, `max-age`), validators (`ETag`,
        /// `Last-Modified` → conditional revalidation) and `Vary`. Default: true.
        public var honorsHTTPCaching: Bool
        /// "Cache only what's safe": rules for GET requests that carry no `Cacheable`. First match wins. Their
        /// answers are keyed `GET <path>?<query>` with the query items sorted by name, then value, so the order a
        /// caller lists them in does not split the cache. Default: none (such requests are never stored).
        public var cachingRules: [CachingRule]
        /// What a successful POST/PUT/PATCH/DELETE invalidates, by path pattern. Default: none.
        public var invalidationRules: [InvalidationRule]
        /// Whether a successful mutation also invalidates the entries fetched from its own path and its parent
        /// collection (`DELETE /api/cards/7` → `/api/cards/7` and `/api/cards`). Default: true.
        public var invalidatesOwnPath: Bool
        /// Headers sent with every request (e.g. `Accept`). Default: `Accept: application/json`.
        public var defaultHeaders: CurlHTTPClient.Headers
        /// Decodes response and error bodies. Default: a plain `JSONDecoder`. While it is a plain `JSONDecoder` with
        /// every option at its default, bodies are decoded by a faster decoder of the package that gives the same
        /// values, and hands the body to this decoder whenever it is not sure to (any error included); set any
        /// option, or pass a subclass, and this decoder alone is used.
        public var decoder: JSONDecoder
        /// Encodes request bodies. Default: a plain `JSONEncoder`.
        public var encoder: JSONEncoder
        /// Decides, when an answer is about to be stored, whether and for how long: it receives the key, the
        /// metadata the request asked for and the upstream's response (to extract entity keys from, say) and
        /// returns the metadata to store, or nil to store nothing. The facade's
        /// settings (per-domain never/always/custom timeouts) plug in here. Consulted on the store path only, never
        /// on a cache hit. Default: nil (store as asked).
        public var storagePolicy: StoragePolicy?
        /// Sees every successful (2xx) upstream answer with the request's method and path, before it is decoded:
        /// the facade learns account id/token pairs and applies mutations to GraphQL records here. Never called
        /// for cache hits. Default: nil.
        public var responseInspector: ResponseInspector?
        /// Hears of every upstream fetch and second-level read (see `CacheInstrumentation`). Default: nil.
        public var instrumentation: (any CacheInstrumentation)?
        /// Header names that count as credentials for the shared scope, besides `Authorization`, `Cookie`,
        /// `Proxy-Authorization` and every header the session's credentials set: a request that carries one of its
        /// own is cached in the session's scope, never the shared one, and an answer whose `Vary` names one is never
        /// stored in the shared scope. Case-insensitive. Default: `["X-Api-Key"]`
        /// (`UpstreamCredentials.defaultExtraCredentialHeaderNames`).
        public var credentialHeaderNames: [String]
        /// A random extra lifetime for each stored answer (FusionCache's `JitterMaxDuration`), so answers stored
        /// together — a fleet warming up, a burst after a deploy — do not expire and refetch together. Applied after
        /// the upstream's `Cache-Control` capped the lifetime, and never by more than its bound; answers that must be
        /// revalidated (lifetime 0) and entries that never expire are not lengthened. Default ``CacheJitter/none``.
        /// A hub sets it through its `rest` configuration.
        public var jitter: CacheJitter = .none
        /// The door's resilience options (fail-safe, soft and hard timeouts, eager refresh) for cache-first and
        /// stale-if-error reads: a request's own ``RequestType/resilience`` and its domain's
        /// (``domainResilience``) win over these. Default ``CacheResilience/none`` (every option off: reads behave as
        /// without resilience, and a fresh hit pays nothing for it). A hub sets it to its `rest` configuration's
        /// value over the hub's own default (`CacheHub.Configuration.resilience`).
        public var resilience: CacheResilience = .none
        /// Per-domain resilience options, between a request's own and ``resilience``; the hub installs one that
        /// reads its settings file. Default: nil.
        public var domainResilience: (any RESTDomainResilience)?

        public init(
            honorsHTTPCaching: Bool = true,
            cachingRules: [CachingRule] = [],
            invalidationRules: [InvalidationRule] = [],
            invalidatesOwnPath: Bool = true,
            defaultHeaders: CurlHTTPClient.Headers = ["Accept": "application/json"],
            decoder: JSONDecoder = JSONDecoder(),
            encoder: JSONEncoder = JSONEncoder(),
            storagePolicy: StoragePolicy? = nil,
            responseInspector: ResponseInspector? = nil,
            credentialHeaderNames: [String] = UpstreamCredentials.defaultExtraCredentialHeaderNames
        ) {
            self.credentialHeaderNames = credentialHeaderNames
            self.honorsHTTPCaching = honorsHTTPCaching
            self.cachingRules = cachingRules
            self.invalidationRules = invalidationRules
            self.invalidatesOwnPath = invalidatesOwnPath
            self.defaultHeaders = defaultHeaders
            self.decoder = decoder
            self.encoder = encoder
            self.storagePolicy = storagePolicy
            self.responseInspector = responseInspector
        }
    }

    /// See ``Configuration/responseInspector``.
    public typealias ResponseInspector =
        @Sendable (
            _ method: CurlHTTPClient.Method, _ path: String, _ response: CurlHTTPClient.Response
        ) -> Void

    /// See ``Configuration/storagePolicy``.
    public typealias StoragePolicy =
        @Sendable (
            _ key: String, _ metadata: CacheEntryMetadata, _ response: CurlHTTPClient.Response
        ) -> CacheEntryMetadata?

    /// The session's credentials, attached to every request that is not shared (shared with the GraphQL client).
    public typealias Credentials = UpstreamCredentials
}

/// A rule for GET requests without a `Cacheable` (the selective-caching seed's `shouldCacheResource`).
public struct CachingRule: Sendable {
    public var pattern: PathPattern
    /// Whether matching requests are cached at all.
    public var cache: Bool
    public var timeout: Timeout
    public var domains: Set<String>
    /// Public data shared by all sessions (sent without the session's credentials).
    public var isShared: Bool

    public init(
        _ pattern: PathPattern,
        cache: Bool = true,
        timeout: Timeout = .useDefault,
        domains: Set<String> = [],
        isShared: Bool = false
    ) {
        self.pattern = pattern
        self.cache = cache
        self.timeout = timeout
        self.domains = domains
        self.isShared = isShared
    }
}

/// What a successful mutation matching `pattern` invalidates (the selective-caching seed's
/// `invalidateRelatedCaches`).
public struct InvalidationRule: Sendable {
    public var pattern: PathPattern
    public var targets: [InvalidationTarget]

    public init(_ pattern: PathPattern, invalidates targets: [InvalidationTarget]) {
        self.pattern = pattern
        self.targets = targets
    }
}
