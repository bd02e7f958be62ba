import CacheCore
import GraphQLLanguage

/// The session's `GraphQLCacheManaging`: clears the client's scope in the normalized store and its query
/// timestamps (the seeds' APICoreKit `GraphQLCacheManager`).
///
/// Clears that remove more than one record or field move the scope to a new generation, so an answer already
/// in flight is delivered but not stored: nothing cleared comes back. Removing one record and collecting
/// garbage do not (they tidy, they do not revoke).
public final class GraphQLCacheManager: GraphQLCacheManaging {
    /// How account data is found. Every field has a documented default.
    public struct Configuration: Sendable, Hashable {
        /// The record keys of an account, `{id}` standing for its id. Default `["Account:{id}"]`, the key
        /// ``TypenameIDKeyProvider`` gives; add more for other keyed types that belong to an account.
        public var accountRecordKeyFormats: [String]
        /// Collect unreachable records after account and query clears (the transactions only the removed
        /// account referenced, the path-keyed objects below a removed root field). Default true.
        public var collectsGarbageAfterClears: Bool

        /// Creates a configuration; each parameter defaults to the value documented on its property.
        public init(accountRecordKeyFormats: [String] = ["Account:{id}"], collectsGarbageAfterClears: Bool = true) {
            self.accountRecordKeyFormats = accountRecordKeyFormats
            self.collectsGarbageAfterClears = collectsGarbageAfterClears
        }
    }

    /// The session's client: its store, scope and timestamps are what this manager clears.
    public let client: GraphQLClient
    /// How account data is found.
    public let configuration: Configuration

    /// Creates the manager of a client's session.
    public init(client: GraphQLClient, configuration: Configuration = Configuration()) {
        self.client = client
        self.configuration = configuration
    }

    private var store: GraphQLNormalizedStore {
        client.store
    }

    private var scope: CacheScope {
        client.scope
    }

    @discardableResult
    public func clearCache(reason: ClearReason) async -> GraphQLClearReport {
        let eviction = store.clear(scope: scope, reason: reason)
        var report = GraphQLClearReport(scope: scope, target: .all, reason: reason)
        report.add(eviction)
        report.timestamps = client.existingState?.timestamps.removeAll(staleBefore: nil) ?? 0
        return report
    }

    @discardableResult
    public func clearCache(forAccountId accountId: String, reason: ClearReason) async -> GraphQLClearReport {
        let recordKeys = Set(configuration.accountRecordKeyFormats.map { $0.replacing("{id}", with: accountId) })
        let forgotten =
            client.existingState?.timestamps.remove { _, entry in entry.variables.mentions(accountId) } ?? []
        let exactRootKeys = rootKeys(of: forgotten)
        let eviction = store.removeSelected(
            records: { key, _ in recordKeys.contains(key) },
            fields: { recordKey, storageKey in
                GraphQLRecord.isRootKey(recordKey)
                    && (exactRootKeys.contains(storageKey) || StorageKeyArguments.mention(accountId, in: storageKey))
            },
            removingDanglingReferences: true,
            collectingGarbage: configuration.collectsGarbageAfterClears,
            in: scope,
            reason: reason
        )
        return report(.account(accountId), reason, eviction, removedRecords: true, timestamps: forgotten.count)
    }

    @discardableResult
    public func clearCache(forQuery query: String, reason: ClearReason) async -> GraphQLClearReport {
        let selector = QuerySelector(query)
        let forgotten = client.existingState?.timestamps.remove { key, _ in selector.matches(key) } ?? []
        let exactRootKeys = rootKeys(of: forgotten)
        // Queries this client never stored (another client of the session did, or its timestamp was cleared):
        // every argument variant of the operation's root fields goes, which may take a neighbour's too.
        let rootFieldNames: Set<String> =
            forgotten.isEmpty ? Set(client.documents.rootFieldNames(ofOperationNamed: selector.operationName)) : []
        let eviction = store.removeSelected(
            records: { _, _ in false },
            fields: { recordKey, storageKey in
                recordKey == GraphQLRecord.queryRootKey
                    && (exactRootKeys.contains(storageKey)
                        || rootFieldNames.contains(StorageKeyArguments.fieldName(of: storageKey)))
            },
            removingDanglingReferences: false,
            collectingGarbage: configuration.collectsGarbageAfterClears,
            in: scope,
            reason: reason
        )
        return report(.query(query), reason, eviction, removedRecords: true, timestamps: forgotten.count)
    }

    @discardableResult
    public func clearCache(forTypename typename: String, reason: ClearReason) async -> GraphQLClearReport {
        let eviction = store.removeRecords(ofTypename: typename, in: scope, reason: reason)
        return report(.typename(typename), reason, eviction, removedRecords: true)
    }

    @discardableResult
    public func clearCache(matching pattern: String, reason: ClearReason) async throws(GraphQLCacheError)
        -> GraphQLClearReport
    {
        let eviction = try store.removeRecords(matching: pattern, in: scope, reason: reason)
        return report(.pattern(pattern), reason, eviction, removedRecords: true)
    }

    @discardableResult
    public func evictField(_ field: String, ofTypename typename: String, reason: ClearReason) async
        -> GraphQLClearReport
    {
        let eviction = store.evictField(field, ofTypename: typename, in: scope, reason: reason)
        return report(.field(typename: typename, field: field), reason, eviction, removedRecords: false)
    }

    @discardableResult
    public func removeRecord(_ key: String) async -> GraphQLClearReport {
        let eviction = store.removeRecord(key, removingReferences: true, in: scope)
        return report(.record(key), .manual, eviction, removedRecords: true)
    }

    @discardableResult
    public func collectGarbage() async -> GraphQLClearReport {
        let eviction = store.collectGarbage(in: scope)
        return report(.garbage, .manual, eviction, removedRecords: true)
    }

    @discardableResult
    public func clearTimestamps() async -> GraphQLClearReport {
        let start = ContinuousClock.now
        let forgotten = client.clearTimestamps()
        return GraphQLClearReport(
            scope: scope,
            target: .timestamps,
            reason: .manual,
            timestamps: forgotten,
            duration: ContinuousClock.now - start
        )
    }

    // MARK: - Helpers

    /// The root storage keys the forgotten queries were stored under.
    private func rootKeys(of entries: [QueryTimestamps.Entry]) -> Set<String> {
        var keys = Set<String>()
        for entry in entries {
            let rootKeys = try? store.rootStorageKeys(of: entry.document.operation, variables: entry.variables)
            keys.formUnion(rootKeys ?? [])
        }
        return keys
    }

    private func report(
        _ target: GraphQLClearReport.Target,
        _ reason: ClearReason,
        _ eviction: GraphQLEvictionReport,
        removedRecords: Bool,
        timestamps: Int = 0
    ) -> GraphQLClearReport {
        var report = GraphQLClearReport(scope: scope, target: target, reason: reason, timestamps: timestamps)
        report.add(eviction)
        if removedRecords {
            report.removedRecordKeys = eviction.recordKeys
        }
        return report
    }
}
