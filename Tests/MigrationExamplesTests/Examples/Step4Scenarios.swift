import Foundation
import GraphQLCache
import RESTCache
import UnifiedCache

// MIGRATION.md, step 4: the seeds' cache clearing scenarios as calls. Every declaration here is quoted in
// MIGRATION.md; edit both together.

extension BankBFF {
    /// Scenarios 1 and 3, logout and session expiry: REST entries, GraphQL records, query timestamps and upstream
    /// cookies of the session go, answers still in flight are not stored, and the hub forgets the session.
    /// `nil` when no such session is live.
    func endSession(_ sessionID: String, expired: Bool = false) async -> UnifiedClearReport? {
        await hub.endSession(id: sessionID, reason: expired ? .sessionExpired : .logout)
    }

    /// Scenario 2, account switch: the previous account's REST entries and GraphQL record go; the profile, the
    /// other accounts and uplifted entries stay.
    func switchAccount(_ session: CacheSession, from previousAccountId: String) async -> UnifiedClearReport {
        await session.cacheManager.clearCache(forAccountId: previousAccountId)
    }

    /// Scenario 4, pull-to-refresh: nothing is cleared; the screen's reads skip the cache and store what they get.
    func refreshBalances(_ session: CacheSession, accountId: String) async throws -> (rest: Balance, graphQL: Double) {
        var request = BalanceRequest(accountId: accountId)
        request.cachePolicy = .networkOnly
        let rest = try await session.rest.perform(with: request).get()
        let graphQL = try await session.graphQL.fetch(
            query: AccountBalanceQuery(accountId: accountId),
            cachePolicy: .fetchIgnoringCacheData
        ).get()
        guard let account = graphQL.data.account else { throw AccountNotFound(accountId: accountId) }
        return (rest, account.balance)
    }

    /// Scenario 5, stale timeout: nothing to call, a read past its timeout fetches by itself. To judge every
    /// cached GraphQL answer as stale at once (after an upstream incident, say):
    func expireGraphQLAnswers(_ session: CacheSession) async -> UnifiedClearReport {
        await session.cacheManager.clearTimestamps()
    }

    /// Scenario 7, error recovery: drop the suspect query's cached answers and fetch again.
    func recoverBalance(
        _ session: CacheSession,
        accountId: String
    ) async -> Result<GraphQLResult<AccountBalanceQuery.Data>, GraphQLCacheError> {
        await session.cacheManager.clearCache(forQuery: AccountBalanceQuery.operationName)
        return await session.graphQL.fetch(query: AccountBalanceQuery(accountId: accountId))
    }

    /// Scenario 8, settings change: the new file is checked, put in force, and the domains whose policy or
    /// definition changed are cleared in every live session. A broken file throws; the settings in force stay.
    func reloadSettings(path: String) async throws(UnifiedCacheError) -> SettingsChange {
        try await hub.reloadSettings(from: .file(path), clearingAffectedDomains: true)
    }
}
