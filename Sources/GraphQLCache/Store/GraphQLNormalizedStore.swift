import CacheCore
import GraphQLLanguage

/// The normalized GraphQL cache: every object of every response stored once, as a record under its cache key,
/// and operations read back by walking their selection over the records.
///
/// One partition per `CacheScope` (a session, or `.shared`), like CacheCore's `CacheStore`: reads never cross
/// scopes, and a scope is cleared in constant time. Records count against the same process-wide `MemoryBudget`
/// as the REST store; the least recently used records go first when a scope is over its limit, or when the
/// process is and no primary reclaimer (a session registry ending whole sessions) freed enough.
/// ``purgeRecords(writtenBefore:)`` removes records older than any freshness rule accepts, at the cost of what it
/// removes, and ``updateLimits(maxBytesPerScope:maxRecordsPerScope:)`` changes the per-scope limits at run time.
///
/// Concurrency: every method may be called from any thread or task. Readers of a scope share its lock (they
/// never block each other); a write holds it alone only while merging, after the response was normalized and
/// validated without any lock.
///
/// ```swift
/// let store = try GraphQLNormalizedStore(cacheConfiguration: .typenameAndID())
/// let operation = try GraphQLParser.parse(query).prepare(operationName: nil)
/// let generation = store.generation(of: scope)          // before the upstream call
/// let data = try GraphQLJSON(parsing: body)["data"]?.objectValue ?? [:]
/// try store.write(operation, variables: variables, data: data, in: scope, ifGeneration: generation)
/// if case .hit(let hit) = try store.read(Accounts.self, operation: operation, variables: variables, in: scope) {
///     use(hit.data)
/// }
/// ```
public final class GraphQLNormalizedStore: Sendable {
    /// How records are keyed and fragments matched.
    public let cacheConfiguration: GraphQLCacheConfiguration
    /// The limits the store was created with; the per-scope limits may have changed since (see
    /// ``currentLimits`` and ``updateLimits(maxBytesPerScope:maxRecordsPerScope:)``).
    public let configuration: Configuration
    /// The time source of `writtenAt` on fields; inject a `ManualCacheClock` in tests.
    public let clock: any CacheClock
    /// The process-wide byte budget shared with other stores, if any.
    public let budget: MemoryBudget?
    let observer: (any CacheEventObserver)?
    /// Told of every write that changed stored data, with the operation's kind: the facade links GraphQL
    /// changes to REST entries that depend on the same entities.
    let changeObserver:
        (@Sendable (_ scope: CacheScope, _ kind: GraphQLOperationDefinition.Kind, _ changes: GraphQLChangeSet) -> Void)?
    let partitions: ScopedPartitions<NormalizedPartition>
    let sizing: RecordSizing
    /// The per-scope limits in force, read with one atomic load each per write.
    let liveLimits: LiveRecordLimits
    /// The scopes by their oldest record write (or at once when left empty), so a purge visits only those due.
    let writeQueue = ScopeDueQueue()
    /// The selection plans of the client's cached reads, per prepared document and variables.
    let selectionPlans = SelectionPlanCache(maximumPlans: 512)
    /// Answers the upstream declared `PUBLIC`, for clients that share them across sessions (off by default).
    let publicResponses: PublicResponseCache
    /// The upstreams that answered `PersistedQueryNotSupported`, for every client of the store.
    let persistedQuerySupport = PersistedQuerySupport()

    /// - Parameters:
    ///   - cacheConfiguration: key providers and possible types; without providers, objects are stored under
    ///     their response paths (no sharing between queries).
    ///   - configuration: limits; validated here.
    ///   - clock: time source for the write times of fields.
    ///   - budget: a process-wide byte budget; the store charges its records to it and registers as one of its
    ///     reclaimers.
    ///   - observer: receives `CacheEvent`s (read hits and misses keyed by operation name, evictions, clears).
    ///   - changeObserver: told of every write that changed stored data, with the operation's kind, so callers
    ///     can invalidate other caches of the same entities (the facade's entity links).
    public init(
        cacheConfiguration: GraphQLCacheConfiguration = GraphQLCacheConfiguration(),
        configuration: Configuration = Configuration(),
        clock: any CacheClock = SystemCacheClock(),
        budget: MemoryBudget? = nil,
        observer: (any CacheEventObserver)? = nil,
        changeObserver: (
            @Sendable (_ scope: CacheScope, _ kind: GraphQLOperationDefinition.Kind, _ changes: GraphQLChangeSet) ->
                Void
        )? = nil
    ) throws(GraphQLCacheError) {
        try configuration.validate()
        self.changeObserver = changeObserver
        self.cacheConfiguration = cacheConfiguration
        self.configuration = configuration
        self.clock = clock
        self.budget = budget
        self.observer = observer
        self.partitions = ScopedPartitions(stripeCount: configuration.stripeCount)
        self.sizing = configuration.sizing
        self.liveLimits = LiveRecordLimits(configuration)
        self.publicResponses = PublicResponseCache(budget: budget)
        budget?.register(self)
    }

    deinit {
        publicResponses.removeAll()
        guard let budget else {
            return
        }
        var held = 0
        partitions.forEachPartition { _, partition in
            held += partition.table.write { state in state.removeAll(budget: nil).bytes }
        }
        budget.release(held)
    }

    // MARK: - Generations

    /// The scope's generation. Take it *before* the upstream call and pass it to ``write(_:variables:data:in:ifGeneration:)``
    /// so that an answer that started before a clear is not stored after it.
    public func generation(of scope: CacheScope) -> CacheGeneration {
        partitions.generation(of: scope)
    }

    // MARK: - Inspection

    /// Counters and sizes of one scope (reads are counted as hits and misses, records written as inserts).
    public func statistics(for scope: CacheScope) -> CacheStatistics {
        partitions.withExistingPartition(scope) { $0.statistics } ?? CacheStatistics()
    }

    /// Counters of every scope ever held and sizes of the live ones.
    public func statistics() -> CacheStatistics {
        partitions.totalStatistics()
    }

    /// Answers kept for sharing across sessions now: `PUBLIC` answers of clients that opted in with
    /// ``GraphQLClient/Configuration/sharesPublicResponses``.
    public var sharedPublicResponseCount: Int {
        publicResponses.count
    }

    /// Cache-first misses of a session answered from another session's shared `PUBLIC` answer since the store was
    /// made: the shared hits of GraphQL.
    public var sharedPublicResponseHits: Int {
        publicResponses.hits
    }

    /// Forgets every answer kept for sharing across sessions (each session's own records stay); returns how many.
    /// A clear of the shared scope (``clear(scope:reason:)`` with `.shared`) does it too.
    @discardableResult
    public func removeSharedPublicResponses() -> Int {
        publicResponses.removeAll()
    }

    /// Forgets which upstreams answered `PersistedQueryNotSupported` (every client of the store sends them whole
    /// documents since), so the next operation to each tries automatic persisted queries again: for an upstream
    /// that has enabled them since. Returns how many upstreams were forgotten.
    @discardableResult
    public func resetPersistedQuerySupport() -> Int {
        persistedQuerySupport.reset()
    }

    /// Records held by the scope now.
    public func recordCount(in scope: CacheScope) -> Int {
        table(for: scope)?.recordCount ?? 0
    }

    /// Bytes charged for the scope's records now.
    public func byteCount(in scope: CacheScope) -> Int {
        table(for: scope)?.byteCount ?? 0
    }

    /// A copy of one record, without marking it as used.
    public func record(_ key: String, in scope: CacheScope) -> GraphQLRecord? {
        table(for: scope)?.read { state in state.records[key]?.snapshot }
    }

    /// Copies of every record of the scope, sorted by key: for export and debugging. Costs a copy of the scope.
    public func records(in scope: CacheScope) -> [GraphQLRecord] {
        let snapshot = table(for: scope)?.read { state in state.records.map(\.snapshot) } ?? []
        return snapshot.sorted { $0.key < $1.key }
    }

    /// The scope's table, if it has one; the stripe lock is held only to find it.
    func table(for scope: CacheScope) -> NormalizedRecordTable? {
        partitions.withExistingPartition(scope) { $0.table }
    }

    // MARK: - Events

    func emitEvictions(_ tally: RemovalTally, reason: EvictionReason, in scope: CacheScope) {
        guard let observer else {
            return
        }
        for key in tally.recordKeys {
            observer.cacheDidEmit(.evicted(scope: scope, key: key, reason: reason))
        }
    }
}
