import CacheCore
import CurlHTTP
import Foundation
import GraphQLCache
import RESTCache
import Synchronization

/// The process-wide part of the cache: one HTTP client, one memory budget, the settings, both stores (whose
/// shared scope holds public data), and the live sessions.
///
/// A BFF makes one hub at start-up, asks it for a ``CacheSession`` per logged-in user on each request, and ends
/// the session at logout or expiry. Nothing of one session is readable from another: values, statistics, exports
/// and cookies are all per session.
public final class CacheHub: Sendable {
    public let configuration: Configuration
    /// The one HTTP client, shared by every session (connections are pooled across sessions; cookies are not).
    public let client: CurlHTTPClient
    /// The settings in force; see ``reloadSettings(from:clearingAffectedDomains:)``.
    public let settings: SettingsStore
    /// The process-wide byte budget both stores count against.
    public let budget: MemoryBudget
    /// REST entries of every session and the shared scope.
    public let restStore: CacheStore
    /// GraphQL records of every session and the shared scope.
    public let graphQLStore: GraphQLNormalizedStore
    /// The clock of both stores.
    public let clock: any CacheClock
    /// Parsed GraphQL documents, shared by every session's client (a document is parsed once per process).
    public let documents = GraphQLDocumentCache()
    private let sessions = Mutex<[String: CacheSession]>([:])
    /// Publishes this hub's clears to the other replicas and applies theirs; nil without replication.
    let replication: ReplicationCoordinator?

    /// Creates the hub and its HTTP client.
    ///
    /// - Parameters:
    ///   - configuration: where the upstreams are, transport limits, REST and GraphQL behaviour, entity links.
    ///   - settings: the settings store: `SettingsStore(environment: ProcessInfo.processInfo.environment)` loads
    ///     `UCACHE_SETTINGS` and the environment overrides; `SettingsStore()` uses the defaults.
    ///   - clock: the clock of both stores (a `ManualCacheClock` in tests).
    ///   - observer: receives every cache event (hits, misses, clears, network calls); silent when nil.
    public init(
        configuration: Configuration,
        settings: SettingsStore,
        clock: any CacheClock = SystemCacheClock(),
        observer: (any CacheEventObserver)? = nil
    ) throws(UnifiedCacheError) {
        let limits = settings.current.memory
        let replication = configuration.replication.map(ReplicationCoordinator.init(configuration:))
        self.replication = replication
        do {
            self.configuration = configuration
            self.settings = settings
            self.clock = clock
            self.client = try CurlHTTPClient(configuration: configuration.transport)
            self.budget = try MemoryBudget(limit: limits.processBudgetBytes)
            let restStore = try CacheStore(
                configuration: .init(
                    maxEntriesPerScope: limits.maxEntriesPerSession,
                    maxBytesPerScope: limits.maxBytesPerSession,
                    defaultTimeout: settings.current.defaultTimeout
                ),
                clock: clock,
                budget: budget,
                observer: observer
            )
            self.restStore = restStore
            self.graphQLStore = try GraphQLNormalizedStore(
                cacheConfiguration: configuration.graphQLCache,
                configuration: .init(maxBytesPerScope: limits.maxBytesPerSession),
                clock: clock,
                budget: budget,
                observer: observer,
                changeObserver: { scope, kind, changes in
                    // A GraphQL mutation changed these records: REST copies of the same entities are stale.
                    guard kind == .mutation else { return }
                    replication?.publish(.graphQLMutation(records: changes.changedRecordKeys.sorted()), scope: scope)
                    for recordKey in changes.changedRecordKeys {
                        restStore.clear(entityKey: recordKey, in: scope, reason: .mutation)
                    }
                }
            )
        } catch let error as UnifiedCacheError {
            throw error
        } catch {
            throw UnifiedCacheError(
                code: .invalidSettings, message: "The cache hub could not be created.", underlying: error)
        }
        replication?.start(hub: self)
    }

    // MARK: Sessions

    /// The session with this id, created on first use with these credentials.
    ///
    /// Credentials are fixed when the session is created; after a token refresh, end the session or create the
    /// hub's session under the new credentials (the cached data lives in the scope, keyed by `id`, and stays).
    public func session(id: String, credentials: APIService.Credentials) throws(UnifiedCacheError) -> CacheSession {
        if let existing = sessions.withLock({ $0[id] }) { return existing }
        let created = try makeSession(id: id, credentials: credentials)
        return sessions.withLock { sessions in
            if let raced = sessions[id] { return raced }
            sessions[id] = created
            return created
        }
    }

    /// The live session with this id, if any.
    public func existingSession(id: String) -> CacheSession? {
        sessions.withLock { $0[id] }
    }

    /// How many sessions are live.
    public var sessionCount: Int { sessions.withLock { $0.count } }

    /// Ends a session at once: its REST entries, GraphQL records, query timestamps and cookies go, and answers
    /// still in flight for it are not stored. Returns nil when no such session is live.
    @discardableResult
    public func endSession(id: String, reason: ClearReason = .logout) async -> UnifiedClearReport? {
        guard let session = sessions.withLock({ $0.removeValue(forKey: id) }) else { return nil }
        defer { replication?.unregister(sessionID: id) }
        return await session.cacheManager.clearEverything(operation: "endSession(id:)", reason: reason)
    }

    private func makeSession(id: String, credentials: APIService.Credentials) throws(UnifiedCacheError)
        -> CacheSession
    {
        let scope = CacheScope.session(id)
        let jar = credentials.cookieJar ?? CookieJar()
        let sessionCredentials = UpstreamCredentials(headers: credentials.headers, cookieJar: jar)
        let accounts = AccountResolver(configuration: configuration.accounts)
        var restConfiguration = configuration.rest
        let links = configuration.entityLinks
        restConfiguration.storagePolicy = RESTSettingsBridge.storagePolicy(settings, links: links)
        let learningPaths = configuration.accountLearningPaths
        let graphQLStore = graphQLStore
        let restStore = restStore
        let replicationLink = replication?.link(forSession: id)
        restConfiguration.responseInspector = { method, path, response in
            if learningPaths.contains(where: { $0.matches(method: method.rawValue, path: path) }) {
                accounts.learn(fromJSON: response.body)
            }
            guard method.isMutating else { return }
            // A REST mutation changed these entities: evict them from the normalized store, and REST copies too.
            let changes = links.changes(method: method.rawValue, path: path, body: response.body)
            replicationLink?.publishRESTMutation(method: method.rawValue, path: path, changes: changes)
            for (recordKey, fields) in changes {
                if let fields {
                    for field in fields { graphQLStore.evictField(field, ofRecord: recordKey, in: scope) }
                } else {
                    graphQLStore.removeRecord(recordKey, removingReferences: true, in: scope)
                }
                restStore.clear(entityKey: recordKey, in: scope, reason: .mutation)
            }
        }
        let rest = APIService(
            baseURL: configuration.restBaseURL,
            client: client,
            cache: CacheManager(store: restStore, scope: scope),
            credentials: sessionCredentials,
            configuration: restConfiguration,
            clock: clock
        )
        var graphQLConfiguration = configuration.graphQL
        graphQLConfiguration.cachingPolicy = GraphQLSettingsBridge.cachingPolicy(settings)
        let graphQL: GraphQLClient
        do {
            graphQL = try GraphQLClient(
                url: configuration.graphQLEndpoint,
                transport: client,
                store: graphQLStore,
                scope: scope,
                credentials: sessionCredentials,
                configuration: graphQLConfiguration,
                cacheConfig: GraphQLSettingsBridge.cacheConfig(settings.current, base: configuration.graphQLFreshness),
                documents: documents
            )
        } catch {
            throw UnifiedCacheError(
                code: .invalidSettings, message: "The GraphQL freshness rules are invalid.",
                underlying: error)
        }
        let manager = DefaultUnifiedCacheManager(
            scope: scope,
            rest: CacheManager(store: restStore, scope: scope),
            graphQLClient: graphQL,
            graphQL: graphQL.cacheManager(configuration: configuration.graphQLCacheManager),
            cookieJar: jar,
            settings: settings,
            accounts: accounts,
            sessionID: id,
            extraParts: configuration.sessionCacheParts,
            replication: replicationLink
        )
        return CacheSession(
            id: id, scope: scope, rest: rest, graphQL: graphQL, cookieJar: jar, cacheManager: manager,
            accounts: accounts)
    }

    // MARK: Settings

    /// Applies new settings. With `clearingAffectedDomains` (default: the settings' own switch), the domains whose
    /// policy or definition changed are cleared in every live session (the seeds' scenario 8). An invalid source
    /// throws and the previous settings stay in force.
    @discardableResult
    public func reloadSettings(
        from source: SettingsSource,
        clearingAffectedDomains: Bool? = nil
    ) async throws(UnifiedCacheError) -> SettingsChange {
        let change = try settings.reload(from: source)
        let live = sessions.withLock { Array($0.values) }
        let freshness = GraphQLSettingsBridge.cacheConfig(change.current, base: configuration.graphQLFreshness)
        for session in live {
            // Validated when the sessions were created; only the settings' global part changes here.
            try? session.graphQL.updateCacheConfig(freshness)
        }
        guard clearingAffectedDomains ?? change.current.clearsAffectedDomainsOnChange else { return change }
        await ReplicationCoordinator.$publishingSuppressed.withValue(true) {
            for session in live {
                for domain in change.domainsToClear {
                    await session.cacheManager.clear(domain: domain.name, reason: .settingsChanged)
                }
            }
        }
        replication?.publishSettingsClear(change.domainsToClear.map(\.name.rawValue), reason: .settingsChanged)
        return change
    }

    // MARK: Observability

    /// Statistics of the whole process (every session and the shared scope, including ended sessions' counters).
    public func statistics() -> UnifiedCacheStatistics {
        let graphQL = graphQLStore.statistics()
        let timestamps = sessions.withLock { Array($0.values) }.reduce(0) { $0 + $1.graphQL.queryTimestamps.count }
        return UnifiedCacheStatistics(
            rest: restStore.statistics(),
            graphQL: graphQL,
            graphQLRecords: graphQL.entryCount,
            queryTimestamps: timestamps
        )
    }

    /// The hub's metrics in Prometheus text exposition format (0.0.4): counters per part, no session ids.
    public func metricsText() -> String {
        let statistics = statistics()
        let export = try? MetricsExport(
            series: [
                MetricsExport.Series(part: "rest", statistics: statistics.rest),
                MetricsExport.Series(part: "graphql", statistics: statistics.graphQL),
            ],
            process: .init(
                memoryBudgetBytes: budget.limit,
                memoryUsedBytes: budget.usedBytes,
                sessions: sessionCount
            )
        )
        return (export?.prometheusText() ?? "") + (replication?.prometheusText() ?? "")
    }

    /// Stops the HTTP client; sessions can no longer reach the upstreams.
    public func shutdown() async {
        await replication?.shutdown()
        await client.shutdown()
    }
}
