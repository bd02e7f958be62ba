import CacheCore
import GraphQLLanguage

/// Clearing one session's GraphQL cache: what the seeds' APICoreKit exposes so that the unified cache manager
/// never touches the GraphQL client's internals.
///
/// The seed's three methods (``clearCache()``, ``clearCache(forAccountId:)``, ``clearCache(forQuery:)``) come
/// as extension methods over requirements that also take a `ClearReason`, which reaches the `.cleared` events
/// and the report; the extras cover the facade's feature domains (typenames, schema coordinates, patterns).
/// Every clear returns a report of what it removed.
public protocol GraphQLCacheManaging: Sendable {
    /// Clears the session's whole GraphQL cache and its query timestamps (logout, session expiry).
    @discardableResult
    func clearCache(reason: ClearReason) async -> GraphQLClearReport

    /// Clears what concerns one account: its record, root fields and query timestamps whose arguments or
    /// variables name it, and references left dangling (account switch).
    @discardableResult
    func clearCache(forAccountId accountId: String, reason: ClearReason) async -> GraphQLClearReport

    /// Clears one query's cached answer: `query` is a query key's text (`GetAccountBalance({"accountId":"101"})`)
    /// or an operation name (every key of that operation). Shared records stay; the query's root fields and
    /// timestamps go, so its next cache-first read fetches (error recovery).
    @discardableResult
    func clearCache(forQuery query: String, reason: ClearReason) async -> GraphQLClearReport

    /// Removes every record of a type (`Card`): a feature's objects as a whole.
    @discardableResult
    func clearCache(forTypename typename: String, reason: ClearReason) async -> GraphQLClearReport

    /// Removes every record whose key matches a glob (`User:*`, `Account:10?`).
    /// - Throws: `invalidPattern`; nothing is removed.
    @discardableResult
    func clearCache(matching pattern: String, reason: ClearReason) async throws(GraphQLCacheError)
        -> GraphQLClearReport

    /// Removes one field of every record of a type (the schema coordinate `typename.field`, e.g.
    /// `Account.balance`); the records stay.
    @discardableResult
    func evictField(_ field: String, ofTypename typename: String, reason: ClearReason) async -> GraphQLClearReport

    /// Removes one record, and the fields that reference it.
    @discardableResult
    func removeRecord(_ key: String) async -> GraphQLClearReport

    /// Removes records no root reaches any more.
    @discardableResult
    func collectGarbage() async -> GraphQLClearReport

    /// Forgets the query timestamps; every answer cached so far becomes stale.
    @discardableResult
    func clearTimestamps() async -> GraphQLClearReport
}

extension GraphQLCacheManaging {
    /// The seed's `clearCache()`: everything of the session, reason `.manual`.
    @discardableResult
    public func clearCache() async -> GraphQLClearReport {
        await clearCache(reason: .manual)
    }

    /// The seed's `clearCache(forAccountId:)`, reason `.accountSwitch`.
    @discardableResult
    public func clearCache(forAccountId accountId: String) async -> GraphQLClearReport {
        await clearCache(forAccountId: accountId, reason: .accountSwitch)
    }

    /// The seed's `clearCache(forQuery:)`, reason `.manual`.
    @discardableResult
    public func clearCache(forQuery query: String) async -> GraphQLClearReport {
        await clearCache(forQuery: query, reason: .manual)
    }

    /// ``clearCache(forTypename:reason:)`` with reason `.manual`.
    @discardableResult
    public func clearCache(forTypename typename: String) async -> GraphQLClearReport {
        await clearCache(forTypename: typename, reason: .manual)
    }

    /// ``clearCache(matching:reason:)`` with reason `.manual`.
    @discardableResult
    public func clearCache(matching pattern: String) async throws(GraphQLCacheError) -> GraphQLClearReport {
        try await clearCache(matching: pattern, reason: .manual)
    }

    /// ``evictField(_:ofTypename:reason:)`` for a schema coordinate such as `Account.balance`.
    /// - Throws: `invalidPattern` when the coordinate is not `Type.field`; nothing is removed.
    @discardableResult
    public func evictField(
        coordinate: String,
        reason: ClearReason = .manual
    ) async throws(GraphQLCacheError) -> GraphQLClearReport {
        guard let (typename, field) = GraphQLCacheConfig.split(coordinate) else {
            throw GraphQLCacheError(
                code: .invalidPattern,
                message: "A schema coordinate is written 'Type.field', such as 'Account.balance'."
            )
        }
        return await evictField(field, ofTypename: typename, reason: reason)
    }
}
