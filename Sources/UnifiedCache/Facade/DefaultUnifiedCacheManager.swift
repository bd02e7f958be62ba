import CacheCore
import CurlHTTP
import GraphQLCache
import RESTCache

/// One session's caches behind one object: the seed's `UnifiedCacheManager` and the fifteen granular
/// `CacheManaging` methods, each clearing REST and GraphQL data alike. Every method returns a report.
///
/// Bound to one session's scope: nothing it does reaches another session.
public final class DefaultUnifiedCacheManager: UnifiedCacheManager, CacheManaging {
    /// The session's scope in both stores.
    public let scope: CacheScope
    let rest: CacheManager
    let graphQLStore: GraphQLNormalizedStore
    let graphQLClient: GraphQLClient
    let graphQL: GraphQLCacheManager
    let cookieJar: CookieJar?
    let settings: SettingsStore
    let accounts: AccountResolver
    let sessionID: String
    let extraParts: [any SessionCachePart]
    /// Publishes this session's clears to the other replicas; nil without replication.
    let replication: SessionReplicationLink?
    /// Applies this session's clears to the shared second level; nil without one.
    let secondLevel: SecondLevelFront?
    /// The value door's store (the session's scope in it); nil for a manager made without a hub.
    let values: CacheStore?

    init(
        scope: CacheScope,
        rest: CacheManager,
        graphQLClient: GraphQLClient,
        graphQL: GraphQLCacheManager,
        cookieJar: CookieJar?,
        settings: SettingsStore,
        accounts: AccountResolver,
        sessionID: String,
        extraParts: [any SessionCachePart],
        replication: SessionReplicationLink? = nil,
        secondLevel: SecondLevelFront? = nil,
        values: CacheStore? = nil
    ) {
        self.scope = scope
        self.rest = rest
        self.graphQLStore = graphQLClient.store
        self.graphQLClient = graphQLClient
        self.graphQL = graphQL
        self.cookieJar = cookieJar
        self.settings = settings
        self.accounts = accounts
        self.sessionID = sessionID
        self.extraParts = extraParts
        self.replication = replication
        self.secondLevel = secondLevel
        self.values = values
    }

    // MARK: Whole-session clears

    @discardableResult
    public func clearAllCaches() async -> UnifiedClearReport {
        await clearEverything(operation: "clearAllCaches()", reason: .logout)
    }

    /// ``clearAllCaches()`` with the reason recorded in events and the report (logout, session expiry, …).
    @discardableResult
    public func clearEverything(operation: String = "clearAllCaches()", reason: ClearReason) async
        -> UnifiedClearReport
    {
        var run = clearOwnParts(operation: operation, reason: reason)
        await Self.clearExtraParts(extraParts, sessionID: sessionID, reason: reason, into: &run)
        await secondLevel?.clearNamespace(of: scope)
        replication?.publish(.everything(reason: reason.replicatedName, endsSession: false))
        return run.finished()
    }

    /// The synchronous part of a whole-session clear: REST, GraphQL, timestamps and cookies. Both stores' scopes
    /// are detached in constant time and move to a new generation, so nothing in flight lands afterwards.
    func clearOwnParts(operation: String, reason: ClearReason) -> ClearRun {
        Self.clearOwnParts(
            rest: rest.store, graphQLClient: graphQLClient, cookieJar: cookieJar, values: values, scope: scope,
            operation: operation, reason: reason)
    }

    /// ``clearOwnParts(operation:reason:)`` for a session's parts, without making its manager.
    static func clearOwnParts(
        rest: CacheStore, graphQLClient: GraphQLClient, cookieJar: CookieJar?, values: CacheStore? = nil,
        scope: CacheScope, operation: String, reason: ClearReason
    ) -> ClearRun {
        var run = ClearRun(operation, reason: reason)
        clearStores(rest: rest, graphQL: graphQLClient.store, values: values, scope: scope, reason: reason, into: &run)
        run.part("timestamps") { part in
            part.timestamps = graphQLClient.clearTimestamps()
        }
        run.part("cookies") { part in
            guard let jar = cookieJar else { return }
            part.cookies = jar.cookies().count
            jar.clear()
        }
        return run
    }

    /// Drops the scope from the stores (constant time each). The value store's scope is always dropped (its
    /// generation moves, so a factory still running does not store); its part is reported when it held values.
    static func clearStores(
        rest: CacheStore,
        graphQL: GraphQLNormalizedStore,
        values: CacheStore? = nil,
        scope: CacheScope,
        reason: ClearReason,
        into run: inout ClearRun
    ) {
        run.part("rest") { part in
            let report = rest.clear(scope: scope, reason: reason)
            part.entries = report.entries
            part.bytes = report.bytes
        }
        run.part("graphql") { part in
            let report = graphQL.clear(scope: scope, reason: reason)
            part.records = report.records
            part.bytes = report.bytes
        }
        if let report = values?.clear(scope: scope, reason: reason), report.entries > 0 {
            run.part("values") { part in
                part.entries = report.entries
                part.bytes = report.bytes
            }
        }
    }

    /// Clears the application's own session parts; each failure is reported and the others still run.
    static func clearExtraParts(
        _ parts: [any SessionCachePart],
        sessionID: String,
        reason: ClearReason,
        into run: inout ClearRun
    ) async {
        for extra in parts {
            await run.part(extra.name) { _ in try await extra.clearAll(sessionID: sessionID, reason: reason) }
        }
    }

    @discardableResult
    public func clearRESTCache() async -> UnifiedClearReport {
        var run = ClearRun("clearRESTCache()", reason: .manual)
        run.part("rest") { part in
            let report = rest.store.clear(scope: scope, reason: .manual)
            part.entries = report.entries
            part.bytes = report.bytes
        }
        await secondLevel?.clear([.kind(.rest)], in: scope)
        replication?.publish(.rest)
        return run.finished()
    }

    @discardableResult
    public func clearGraphQLCache() async -> UnifiedClearReport {
        var run = ClearRun("clearGraphQLCache()", reason: .manual)
        run.part("graphql") { part in
            let report = graphQLStore.clear(scope: scope, reason: .manual)
            part.records = report.records
            part.bytes = report.bytes
        }
        run.part("timestamps") { part in
            part.timestamps = graphQLClient.clearTimestamps()
        }
        await secondLevel?.clear([.kind(.graphQL)], in: scope)
        replication?.publish(.graphQL)
        return run.finished()
    }

    @discardableResult
    public func clearTimestamps() async -> UnifiedClearReport {
        var run = ClearRun("clearTimestamps()", reason: .manual)
        run.part("timestamps") { part in
            part.timestamps = graphQLClient.clearTimestamps()
        }
        replication?.publish(.timestamps)
        return run.finished()
    }

    @discardableResult
    public func clearCache(forQuery query: String) async -> UnifiedClearReport {
        var run = ClearRun("clearCache(forQuery:)", reason: .userRefresh)
        await run.part("graphql") { part in
            let removed = await graphQL.clearCache(forQuery: query, reason: .userRefresh)
            part.records = removed.records
            part.fields = removed.fields
            part.bytes = removed.bytes
        }
        // The query's records may be read by other results: the session's GraphQL entries go.
        await secondLevel?.clear([.kind(.graphQL)], in: scope)
        replication?.publish(.query(query))
        return run.finished()
    }

    // MARK: Accounts

    @discardableResult
    public func clearCache(forAccountId accountId: String) async -> UnifiedClearReport {
        await clearAccount(accountId, operation: "clearCache(forAccountId:)")
    }

    @discardableResult
    public func clearCache(forAccountToken accountToken: String) async -> UnifiedClearReport {
        await clearAccount(accountToken, operation: "clearCache(forAccountToken:)")
    }

    private func clearAccount(_ identifier: String, operation: String) async -> UnifiedClearReport {
        let identifiers = accounts.identifiers(of: identifier)
        var run = ClearRun(operation, reason: .accountSwitch)
        run.part("rest") { part in
            for account in identifiers.sorted() {
                // Entries recorded under the account (Cacheable.accountIds) and those whose answer describes it
                // (entity links record `Account:<id>`).
                var reports = [rest.clearCache(account: account, reason: .accountSwitch)]
                for format in graphQL.configuration.accountRecordKeyFormats {
                    let entityKey = format.replacingOccurrences(of: "{id}", with: account)
                    reports.append(rest.clearCache(entityKey: entityKey, reason: .accountSwitch))
                }
                for report in reports {
                    part.entries += report.entries
                    part.bytes += report.bytes
                }
            }
        }
        await run.part("graphql") { part in
            for account in identifiers.sorted() {
                let removed = await graphQL.clearCache(forAccountId: account, reason: .accountSwitch)
                part.records += removed.records
                part.fields += removed.fields
                part.bytes += removed.bytes
            }
        }
        var labels: Set<SecondLevelNames.Label> = [.kind(.graphQL)]
        for account in identifiers {
            labels.insert(.account(account))
            for format in graphQL.configuration.accountRecordKeyFormats {
                labels.insert(.entity(format.replacingOccurrences(of: "{id}", with: account)))
            }
        }
        await secondLevel?.clear(labels, in: scope)
        replication?.publish(.account(identifier))
        return run.finished()
    }

    // MARK: Inspection

    public func getCacheStatistics() -> UnifiedCacheStatistics {
        UnifiedCacheStatistics(
            rest: rest.statistics(),
            graphQL: graphQLStore.statistics(for: scope),
            graphQLRecords: graphQLStore.recordCount(in: scope),
            queryTimestamps: graphQLClient.queryTimestamps.count
        )
    }

    public func exportCacheContents(redaction: ExportRedaction = ExportRedaction()) -> String {
        CacheContentsExport(manager: self, redaction: redaction).jsonText()
    }
}
