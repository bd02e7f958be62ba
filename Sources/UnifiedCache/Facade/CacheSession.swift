import CacheCore
import CurlHTTP
import GraphQLCache
import RESTCache

/// Everything a BFF needs for one logged-in user, all bound to that user's scope: the REST service, the GraphQL
/// client, the upstream cookie jar and the cache manager.
///
/// Obtained from ``CacheHub/session(id:credentials:)``; ended by ``CacheHub/endSession(id:reason:)``.
public final class CacheSession: Sendable {
    /// The session's identifier, as the BFF knows it. Never printed: descriptions show a fingerprint.
    public let id: String
    /// The scope of the session's entries in both stores.
    public let scope: CacheScope
    /// REST through the cache (`perform(with:)`), with the session's credentials.
    public let rest: APIService
    /// GraphQL through the normalized cache (`fetch(query:)`, `perform(mutation:)`), with the session's credentials.
    public let graphQL: GraphQLClient
    /// The session's upstream cookies; cleared by ``DefaultUnifiedCacheManager/clearAllCaches()``.
    public let cookieJar: CookieJar
    /// The clearing methods (the seed's `UnifiedCacheManager` and `CacheManaging`).
    public let cacheManager: DefaultUnifiedCacheManager
    /// The account id/token pairs known for this session.
    public let accounts: AccountResolver

    init(
        id: String,
        scope: CacheScope,
        rest: APIService,
        graphQL: GraphQLClient,
        cookieJar: CookieJar,
        cacheManager: DefaultUnifiedCacheManager,
        accounts: AccountResolver
    ) {
        self.id = id
        self.scope = scope
        self.rest = rest
        self.graphQL = graphQL
        self.cookieJar = cookieJar
        self.cacheManager = cacheManager
        self.accounts = accounts
    }
}

extension CacheSession: CustomStringConvertible {
    public var description: String { "CacheSession(\(scope))" }
}
