/// How a request's response is cached: the seed's three fields, plus optional server-side extras.
///
/// Callers used to NABAPICoreKit write exactly what they wrote before:
/// ```swift
/// struct Cache: Cacheable {
///     let key: String               // "cardsExperienceV3.page_1.key"
///     let timeout: Timeout          // .seconds(300) or .never
///     let isUpliftedCache: Bool     // false (regular cache)
/// }
/// ```
public protocol Cacheable: Sendable {
    /// The cache key, unique within a session (e.g. `"cardsExperienceV3.page_1.key"`).
    var key: String { get }
    /// How long the response stays fresh: `.seconds(n)`, `.never` (until cleared) or `.useDefault`.
    var timeout: Timeout { get }
    /// Uplifted entries are held at session level: feature and account clears leave them; only a full clear of
    /// the session (logout, expiry) or an explicit uplifted clear removes them.
    var isUpliftedCache: Bool { get }
    /// The features (cache domains) the entry belongs to, for granular clearing. Default: none.
    var domains: Set<String> { get }
    /// Account ids and tokens the entry concerns, so account clears reach it. Default: none.
    var accountIds: Set<String> { get }
    /// Entities the entry depends on (`"Account:123"`), so a change of them elsewhere invalidates it. Default: none.
    var entityKeys: Set<String> { get }
    /// Public data every session may share. Default: false — entries are private to the session.
    /// A request that carries credentials (`Authorization`, `Cookie`, `Proxy-Authorization`, a header the session's
    /// credentials set, or one of `APIService.Configuration.credentialHeaderNames`) is never stored in the shared
    /// scope.
    var isShared: Bool { get }
}

extension Cacheable {
    public var domains: Set<String> { [] }
    public var accountIds: Set<String> { [] }
    public var entityKeys: Set<String> { [] }
    public var isShared: Bool { false }
}

/// A ready-made `Cacheable` with every field settable.
public struct RequestCache: Cacheable, Hashable {
    public var key: String
    public var timeout: Timeout
    public var isUpliftedCache: Bool
    public var domains: Set<String>
    public var accountIds: Set<String>
    public var entityKeys: Set<String>
    public var isShared: Bool

    /// Creates a cache description; everything but the key has a default.
    public init(
        key: String,
        timeout: Timeout = .useDefault,
        isUpliftedCache: Bool = false,
        domains: Set<String> = [],
        accountIds: Set<String> = [],
        entityKeys: Set<String> = [],
        isShared: Bool = false
    ) {
        self.key = key
        self.timeout = timeout
        self.isUpliftedCache = isUpliftedCache
        self.domains = domains
        self.accountIds = accountIds
        self.entityKeys = entityKeys
        self.isShared = isShared
    }

    /// Copies any `Cacheable` into this concrete form.
    public init(_ cacheable: some Cacheable) {
        self.init(
            key: cacheable.key,
            timeout: cacheable.timeout,
            isUpliftedCache: cacheable.isUpliftedCache,
            domains: cacheable.domains,
            accountIds: cacheable.accountIds,
            entityKeys: cacheable.entityKeys,
            isShared: cacheable.isShared
        )
    }
}
