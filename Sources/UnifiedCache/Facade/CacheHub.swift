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
    /// The value door's entries of every session and the shared scope (see ``values``).
    public let valueStore: CacheStore
    /// The clock of the stores.
    public let clock: any CacheClock
    /// Parsed GraphQL documents, shared by every session's client (a document is parsed once per process).
    public let documents = GraphQLDocumentCache()
    let observer: (any CacheEventObserver)?
    let registry: SessionRegistry
    let factory: SessionFactory
    let terminator: SessionTerminator
    let maintenance = Mutex<Task<Void, Never>?>(nil)
    /// Publishes this hub's clears to the other replicas and applies theirs; nil without replication.
    let replication: ReplicationCoordinator?
    /// The shared second level's front end; nil without ``Configuration/secondLevel``.
    let secondLevel: SecondLevelFront?
    /// What every value door of the hub shares.
    let valueCore: ValueCore

    /// The value door of the shared scope, and the tag clears that reach every session: values the same for every
    /// user, cached only when asked for here (a session's own values go through ``CacheSession/values``).
    public var values: SharedValues { SharedValues(core: valueCore) }

    /// Creates the hub and its HTTP client.
    ///
    /// - Parameters:
    ///   - configuration: where the upstreams are, transport limits, REST and GraphQL behaviour, entity links.
    ///   - settings: the settings store: `SettingsStore(environment: ProcessInfo.processInfo.environment)` loads
    ///     `UCACHE_SETTINGS` and the environment overrides; `SettingsStore()` uses the defaults.
    ///   - clock: the clock of both stores and of session expiry (a `ManualCacheClock` in tests).
    ///   - observer: receives every cache event (hits, misses, clears, network calls, sessions ended); silent
    ///     when nil.
    public init(
        configuration: Configuration,
        settings: SettingsStore,
        clock: any CacheClock = SystemCacheClock(),
        observer: (any CacheEventObserver)? = nil
    ) throws(UnifiedCacheError) {
        let current = settings.current
        let limits = current.memory
        try configuration.replication?.validate()
        for (place, options) in [
            ("resilience", configuration.resilience), ("rest.resilience", configuration.rest.resilience),
            ("graphQL.resilience", configuration.graphQL.resilience),
        ] {
            do {
                _ = try options.validated()
            } catch {
                throw UnifiedCacheError(code: .invalidSettings, message: error.message, place: place, underlying: error)
            }
        }
        let replication = configuration.replication.map {
            ReplicationCoordinator(configuration: $0, instrumentation: configuration.instrumentation)
        }
        self.replication = replication
        let secondLevel = configuration.secondLevel.map { level in
            let prefixes = ClearedKeyPrefixes(settings: settings, rest: configuration.rest)
            return SecondLevelFront(
                configuration: level, clock: clock,
                clockSkew: configuration.replication?.clockSkewAllowance ?? .seconds(2)
            ) {
                prefixes.current
            }
        }
        self.secondLevel = secondLevel
        do {
            self.configuration = configuration
            self.settings = settings
            self.clock = clock
            self.observer = observer
            self.client = try CurlHTTPClient(configuration: configuration.transport)
            let budget = try MemoryBudget(limit: limits.processBudgetBytes)
            self.budget = budget
            // REST answers and cached values live in stores of their own, with the same per-session limits and
            // the one process-wide budget.
            let storeConfiguration = CacheStore.Configuration(
                maxEntriesPerScope: limits.maxEntriesPerSession,
                maxBytesPerScope: limits.maxBytesPerSession,
                defaultTimeout: current.defaultTimeout
            )
            let restStore = try CacheStore(
                configuration: storeConfiguration, clock: clock, budget: budget, observer: observer)
            self.restStore = restStore
            let valueStore = try CacheStore(
                configuration: storeConfiguration, clock: clock, budget: budget, observer: observer)
            self.valueStore = valueStore
            let valueCore = ValueCore(
                store: valueStore, coder: configuration.valueCoder, secondLevel: secondLevel, replication: replication,
                resilience: configuration.resilience, settings: settings, jitter: configuration.valueJitter)
            self.valueCore = valueCore
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
                    var labels = Set(changes.changedRecordKeys.map { SecondLevelNames.Label.entity($0) })
                    labels.insert(.kind(.graphQL))
                    secondLevel?.clearInBackground(labels, in: scope)
                }
            )
            self.factory = try SessionFactory(
                configuration: configuration, client: client, settings: settings, budget: budget,
                restStore: restStore, graphQLStore: graphQLStore, clock: clock, documents: documents,
                replication: replication, secondLevel: secondLevel, values: valueCore)
        } catch let error as UnifiedCacheError {
            throw error
        } catch {
            throw UnifiedCacheError(
                code: .invalidSettings, message: "The cache hub could not be created.", underlying: error)
        }
        registry = SessionRegistry(limits: Self.sessionLimits(current))
        terminator = SessionTerminator(
            registry: registry, budget: budget, observer: observer, replication: replication)
        budget.register(terminator, priority: .primary)
        startMaintenance()
        replication?.start(hub: self)
    }

    deinit {
        maintenance.withLock { $0?.cancel() }
    }

    static func sessionLimits(_ settings: CacheSettings) -> SessionRegistry.Limits {
        SessionRegistry.Limits(
            idleTimeout: settings.sessions.idleTimeout, maxSessions: settings.sessions.maxSessions)
    }

    // MARK: Observability

    /// Statistics of the whole process (every session and the shared scope, including ended sessions' counters).
    public func statistics() -> UnifiedCacheStatistics {
        let graphQL = graphQLStore.statistics()
        let timestamps = registry.sessions.reduce(0) { $0 + ($1.existingParts.graphQLState?.queryTimestampCount ?? 0) }
        return UnifiedCacheStatistics(
            rest: restStore.statistics(),
            graphQL: graphQL,
            graphQLRecords: graphQL.entryCount,
            queryTimestamps: timestamps,
            sharedHits: restStore.statistics(for: .shared).hits + graphQLStore.sharedPublicResponseHits
        )
    }

    /// The hub's metrics as a value: statistics per part, the memory budget, and sessions live, started and
    /// ended by reason. No session ids, principals or accounts.
    public func metrics() -> MetricsExport? {
        let statistics = statistics()
        let lifecycle = sessionStatistics()
        let values = values.statistics()
        guard
            var series = try? [
                MetricsExport.Series(part: "rest", statistics: statistics.rest),
                MetricsExport.Series(part: "graphql", statistics: statistics.graphQL),
            ]
        else { return nil }
        // The value door's series only once it was used: a REST and GraphQL app's exposition stays as it was.
        if values.wasUsed, let valueSeries = try? MetricsExport.Series(part: "values", statistics: values.memory) {
            series.append(valueSeries)
        }
        return try? MetricsExport(
            series: series,
            process: .init(
                memoryBudgetBytes: budget.limit,
                memoryUsedBytes: budget.usedBytes,
                sessions: lifecycle.live,
                sessionsCreated: lifecycle.created,
                sessionsEnded: lifecycle.ended
            )
        )
    }

    /// The hub's metrics in Prometheus text exposition format (0.0.4): counters per part, no session ids.
    /// ``metricFamilies()`` rendered, for apps without a metrics library.
    public func metricsText() -> String {
        CacheMetricFamily.prometheusText(metricFamilies())
    }

    /// Every counter, gauge and summary of ``metricsText()`` as values (the cache's, the value door's once used,
    /// replication's and the second level's), for an integration that feeds a metrics backend without parsing text.
    public func metricFamilies() -> [CacheMetricFamily] {
        var families = metrics()?.metricFamilies() ?? []
        let values = values.statistics()
        if values.wasUsed { families += values.metricFamilies() }
        if let staleAnswers = staleAnswersFamily() { families.append(staleAnswers) }
        families += replication?.metricFamilies() ?? []
        families += secondLevel?.metricFamilies() ?? []
        return families
    }

    /// The hub's metrics as JSON (sorted keys), for an admin endpoint.
    public func metricsJSON() -> Data {
        guard let secondLevel, let metrics = metrics() else { return metrics()?.jsonData() ?? Data() }
        return secondLevel.jsonData(with: metrics.document)
    }

    /// Stops the background maintenance, replication, the second level's store and the HTTP client; sessions can no
    /// longer reach the upstreams.
    public func shutdown() async {
        maintenance.withLock { $0?.cancel() }
        await terminator.pending.drain()
        await replication?.shutdown()
        await secondLevel?.pending.drain()
        await secondLevel?.store.shutdown()
        await client.shutdown()
    }
}
