/// The fifteen granular clearing methods REST callers of NABAPICoreKit already use (the seed's `CacheManaging`).
///
/// Behind the facade each one clears the REST **and** the GraphQL data of its feature (its ``CacheDomain``), so a
/// feature can move from REST to GraphQL without its clears changing. Uplifted entries survive every method here
/// except ``clearCache()``. Each returns what it removed.
///
/// These are the bank's vocabulary, kept for the seeds' callers; the hub's defaults are neutral (an empty domain
/// map). A feature clear uses the domain of its name in the settings' map when it is there (a hub that opted into
/// ``CacheSettings/banking`` or `"domainMap": "banking"`), and otherwise the definition of
/// ``CacheDomainMap/banking``, so it clears what it always cleared on any hub: by the preset's tags, key prefixes and
/// GraphQL operations, types and fields. Only route membership (`/api/accounts/*/balance`) needs the preset in force
/// when an entry is stored. See <doc:ClearingCaches>.
public protocol CacheManaging: Sendable {
    /// Everything of the session: REST, GraphQL, timestamps and the upstream cookie jar (logout).
    @discardableResult func clearCache() async -> UnifiedClearReport
    /// Every entry of the account the token names (REST entries recorded by token or id, its GraphQL record).
    @discardableResult func clearCache(forAccountToken accountToken: String) async -> UnifiedClearReport
    /// Every entry of the account (account switch).
    @discardableResult func clearCache(forAccountId accountId: String) async -> UnifiedClearReport
    @discardableResult func clearBalancesCache() async -> UnifiedClearReport
    @discardableResult func clearCacheForPaymentListOnly() async -> UnifiedClearReport
    @discardableResult func clearAccountSummaryCache() async -> UnifiedClearReport
    @discardableResult func clearTransactionHistoryCache() async -> UnifiedClearReport
    @discardableResult func clearCardsExperienceCache() async -> UnifiedClearReport
    @discardableResult func clearPayeesCache() async -> UnifiedClearReport
    @discardableResult func clearScheduledPaymentsCache() async -> UnifiedClearReport
    @discardableResult func clearUserProfileCache() async -> UnifiedClearReport
    @discardableResult func clearStatementsCache() async -> UnifiedClearReport
    @discardableResult func clearOffersCache() async -> UnifiedClearReport
    @discardableResult func clearNotificationsCache() async -> UnifiedClearReport
    @discardableResult func clearFeatureFlagsCache() async -> UnifiedClearReport
}

/// The seed's unified interface over every cache of a session.
public protocol UnifiedCacheManager: Sendable {
    /// REST + GraphQL + timestamps + the session's upstream cookie jar; finishes every part even when one fails.
    /// Use at logout and session expiry.
    @discardableResult func clearAllCaches() async -> UnifiedClearReport
    /// The session's GraphQL records and query timestamps.
    @discardableResult func clearGraphQLCache() async -> UnifiedClearReport
    /// The session's REST entries, uplifted ones included.
    @discardableResult func clearRESTCache() async -> UnifiedClearReport
    /// Every entry of one account, in both protocols (account switch).
    @discardableResult func clearCache(forAccountId accountId: String) async -> UnifiedClearReport
    /// One GraphQL query's cached results, by query key or operation name (pull-to-refresh of one screen).
    @discardableResult func clearCache(forQuery query: String) async -> UnifiedClearReport
    /// Forgets when queries were fetched, so every cached query is re-evaluated (stale timeout).
    @discardableResult func clearTimestamps() async -> UnifiedClearReport
    /// The session's statistics, REST and GraphQL.
    func getCacheStatistics() -> UnifiedCacheStatistics
    /// The session's cache contents as JSON, values redacted unless asked for.
    func exportCacheContents(redaction: ExportRedaction) -> String
}
