import CacheCore
import CurlHTTP
import GraphQLLanguage
import Synchronization

/// One session's GraphQL access: the seeds' APICoreKit client, over CurlHTTP and the normalized store.
///
/// Bound to one scope and one set of credentials: a BFF makes one per logged-in session (the UnifiedCache
/// facade does it for you), all sharing one `CurlHTTPClient` and one `GraphQLNormalizedStore`. Queries are
/// answered under a ``GraphQLCachePolicy``; concurrent identical queries make one upstream call; answers with
/// errors are not stored; a mutation's result is merged into the store, so every cached query reading the
/// objects it returns sees the change.
///
/// ```swift
/// let client = try GraphQLClient(
///     url: "https://api.example.com/graphql", transport: http, store: store,
///     scope: .session(sessionID), credentials: .bearer(token))
/// let balance = await client.fetch(query: GetAccountBalanceQuery(accountId: "101"))
/// let refreshed = await client.fetch(
///     query: GetAccountBalanceQuery(accountId: "101"), cachePolicy: .fetchIgnoringCacheData)
/// ```
public final class GraphQLClient: Sendable {
    /// What the clients of every session share: endpoint, transport, store, configuration, documents, freshness
    /// rules and in-flight calls (keyed by scope). One per upstream, made once; a session's clients over it are
    /// views over a ``GraphQLSessionBinding`` made when needed, or hold their own credentials and state.
    public final class Shared: Sendable {
        /// The upstream's GraphQL endpoint.
        public let url: String
        /// The HTTP client, shared by every session.
        public let transport: CurlHTTPClient
        /// The normalized store, shared by every session (each reads and writes only its own scope).
        public let store: GraphQLNormalizedStore
        /// Transport and answer handling.
        public let configuration: Configuration
        /// Parsed documents.
        public let documents: GraphQLDocumentCache
        let rules: Mutex<FreshnessRules>
        /// The configured headers as a shared public answer's key names them (lowercased, sorted), made once.
        let publicResponseHeaders: String
        let flights = InFlightCalls<FlightKey, NetworkOutcome>()
        let backgroundTasks = BackgroundTasks()
        /// How many answers each resilience option decided (fail-safe, soft timeout, eager refresh), for every client
        /// over this core: what a hub exports per reason.
        public let staleAnswers = StaleAnswerCounts()
        /// Queries whose upstream failed lately, answered from fail-safe until their throttle ends.
        let throttle = FailSafeThrottle<FlightKey>()
        /// The eager refreshes running, one per query and answer.
        let eagerRefreshes = EagerRefreshGate<FlightKey>()
        /// The longest fail-safe window a call asked for so far, in nanoseconds (see `failSafeRetention`).
        let longestCallFailSafeWindow = Atomic<Int64>(0)
        /// Whether some operation has resilience options of its own (``GraphQLCacheConfig/operationResilience``):
        /// without them and without a default, a cache-first read pays nothing for resilience.
        let hasOperationResilience: Atomic<Bool>

        /// Creates the shared core.
        /// - Throws: `invalidConfiguration` when `cacheConfig` or the configuration's resilience does not validate.
        public init(
            url: String,
            transport: CurlHTTPClient,
            store: GraphQLNormalizedStore,
            configuration: Configuration = Configuration(),
            cacheConfig: GraphQLCacheConfig = GraphQLCacheConfig(),
            documents: GraphQLDocumentCache = GraphQLDocumentCache()
        ) throws(GraphQLCacheError) {
            try cacheConfig.validate()
            do {
                _ = try configuration.resilience.validated()
            } catch {
                throw .invalidResilience(error)
            }
            self.url = url
            self.transport = transport
            self.store = store
            self.configuration = configuration
            self.documents = documents
            self.rules = Mutex(FreshnessRules(cacheConfig))
            self.hasOperationResilience = Atomic(!cacheConfig.operationResilience.isEmpty)
            self.publicResponseHeaders = configuration.headers.map { $0.name.lowercased() + ":" + $0.value }.sorted()
                .joined(separator: "\n")
        }

        /// The freshness rules in force for every client over this core.
        public var cacheConfig: GraphQLCacheConfig {
            rules.withLock { $0.config }
        }

        /// Replaces the freshness rules of every client over this core (a settings reload).
        /// - Throws: `invalidConfiguration`; the rules in force stay.
        public func updateCacheConfig(_ config: GraphQLCacheConfig) throws(GraphQLCacheError) {
            try config.validate()
            rules.withLock { rules in
                rules = FreshnessRules(config)
                hasOperationResilience.store(!config.operationResilience.isEmpty, ordering: .relaxed)
            }
        }
    }

    /// The core this client shares with the other sessions' clients.
    public let shared: Shared
    /// The upstream's GraphQL endpoint.
    public var url: String { shared.url }
    /// The HTTP client, shared by every session.
    public var transport: CurlHTTPClient { shared.transport }
    /// The normalized store, shared by every session (each reads and writes only its own scope).
    public var store: GraphQLNormalizedStore { shared.store }
    /// The session's scope: everything this client reads and writes lives there.
    public let scope: CacheScope
    /// The session's credentials in force: read when an operation is sent, so one in flight keeps what it
    /// started with. Changed by ``updateCredentials(_:)`` (a token refresh).
    public var credentials: Credentials { binding.credentials }
    /// What the client's session lends it: credentials, closed flag and the state kept between operations.
    let binding: any GraphQLSessionBinding
    /// Transport and answer handling.
    public var configuration: Configuration { shared.configuration }
    /// Parsed documents, shared by the clients of all sessions.
    public var documents: GraphQLDocumentCache { shared.documents }

    var flights: InFlightCalls<FlightKey, NetworkOutcome> { shared.flights }
    /// The session's state if made: a client that only reads what is cached never makes it.
    var existingState: GraphQLClientState? { binding.clientState }
    var backgroundTasks: BackgroundTasks { shared.backgroundTasks }
    /// The fleet's shared second level, asked after a miss before the upstream (cache-first queries) and written
    /// after a network answer is merged; nil (the default) keeps the client to the normalized store.
    public var secondLevel: (any GraphQLSecondLevel)? { secondLevelHolder?.level }
    /// Boxed, so a client without a second level (the common case) keeps one word for it.
    private let secondLevelHolder: SecondLevelHolder?

    /// Creates a session's client with a core of its own.
    ///
    /// Time comes from the store's clock (fields are stamped with it when written), so a test moves the
    /// store's `ManualCacheClock` to expire answers.
    /// - Throws: `invalidConfiguration` when `cacheConfig` does not validate.
    public convenience init(
        url: String,
        transport: CurlHTTPClient,
        store: GraphQLNormalizedStore,
        scope: CacheScope,
        credentials: Credentials = .none,
        configuration: Configuration = Configuration(),
        cacheConfig: GraphQLCacheConfig = GraphQLCacheConfig(),
        documents: GraphQLDocumentCache = GraphQLDocumentCache(),
        secondLevel: (any GraphQLSecondLevel)? = nil
    ) throws(GraphQLCacheError) {
        let shared = try Shared(
            url: url, transport: transport, store: store, configuration: configuration, cacheConfig: cacheConfig,
            documents: documents)
        self.init(shared: shared, scope: scope, credentials: credentials, secondLevel: secondLevel)
    }

    /// Creates a session's client over a shared core, holding its own credentials, closed flag and state: the
    /// session's scope, credentials and second level.
    public convenience init(
        shared: Shared,
        scope: CacheScope,
        credentials: Credentials = .none,
        secondLevel: (any GraphQLSecondLevel)? = nil
    ) {
        self.init(
            shared: shared, scope: scope,
            binding: OwnGraphQLBinding(
                credentials: credentials, configuration: shared.configuration, budget: shared.store.budget),
            secondLevel: secondLevel)
    }

    /// Creates a view over a session: credentials, closed flag and the state kept between operations are the
    /// binding's, so the client holds nothing that must outlive the call that made it (see
    /// ``GraphQLSessionBinding``).
    public init(
        shared: Shared,
        scope: CacheScope,
        binding: any GraphQLSessionBinding,
        secondLevel: (any GraphQLSecondLevel)? = nil
    ) {
        self.shared = shared
        self.scope = scope
        self.binding = binding
        self.secondLevelHolder = secondLevel.map(SecondLevelHolder.init)
    }

    /// The session's state, made on first need.
    func state() -> GraphQLClientState {
        binding.clientState { GraphQLClientState(configuration: shared.configuration, budget: store.budget) }
    }

    /// Replaces the credentials later operations carry (a refreshed access token); cached records stay. The
    /// cookie jar is the new credentials' own: pass the old jar to keep the upstream cookies. Over a session
    /// binding, the session's credentials change (every view of it sees them).
    public func updateCredentials(_ credentials: Credentials) {
        binding.updateCredentials(credentials)
    }

    /// Refuses every later operation, for good: the owner calls it when the session the client belongs to ends.
    ///
    /// A handler may still hold the client after its session ended (logout, expiry). Without this, its queries would
    /// go upstream with the ended session's credentials and merge the answers into the session's scope again, where
    /// nothing would ever clear them and a later session with the same scope could read them, and its mutations would
    /// still be sent. After `close()`, `fetch`, `fetchResults` and `perform` fail at once with
    /// ``GraphQLCacheError/Code/closed`` (the refetch managers' queries too): nothing is sent, read or stored. An answer
    /// already in flight is delivered to its caller but not stored; background refreshes not yet sent are not sent.
    /// Clearing through ``cacheManager(configuration:)`` and ``clearTimestamps()`` keeps working. Over a session
    /// binding, the session's clients are closed (every view of it).
    public func close() {
        binding.close()
    }

    /// Whether ``close()`` was called (or the session the client is bound to ended).
    public var isClosed: Bool {
        binding.isClosed
    }

    // MARK: - Freshness rules

    /// The freshness rules in force (the seed's `GraphQLCacheConfig`, for this client and the others over its
    /// core).
    public var cacheConfig: GraphQLCacheConfig {
        shared.rules.withLock { $0.config }
    }

    /// Replaces the freshness rules (a settings reload) of this client and the others over its core; answers
    /// already cached are judged by the new rules from the next read on.
    /// - Throws: `invalidConfiguration`; the rules in force stay.
    public func updateCacheConfig(_ config: GraphQLCacheConfig) throws(GraphQLCacheError) {
        try shared.updateCacheConfig(config)
    }

    // MARK: - Typed operations

    /// Answers a query under a cache policy (default `.returnCacheDataElseFetch`), with a freshness that
    /// overrides the query type's when given (see ``GraphQLCacheConfig`` for the precedence).
    ///
    /// With `.returnCacheDataAndFetch` a cached answer is returned at once and the network's answer refreshes
    /// the store in the background (``waitForBackgroundRefreshes()``);
    /// ``fetchResults(query:cachePolicy:cacheTimeout:)`` delivers both answers instead.
    ///
    /// `resilience` sets this call's options for a slow or failing upstream (fail-safe, soft and hard timeouts,
    /// eager refresh), over the operation's (``GraphQLCacheConfig/operationResilience``) and the client's
    /// (``Configuration/resilience``), option by option; they apply to cache-first reads (the default policy). An
    /// answer a resilience option chose says so in ``GraphQLResult/staleReason``. Invalid options (see
    /// `CacheResilience/validated()`) fail the call with `invalidConfiguration`, nothing sent.
    ///
    /// Inlinable, so that a fresh cached answer is built specialised for the caller's `Data` without an async call
    /// (what remains of the call is the module's own: `startFetch`, and `finishFetch` when the cache does not
    /// answer).
    @inlinable
    public func fetch<Query: GraphQLQuery>(
        query: Query,
        cachePolicy: GraphQLCachePolicy? = nil,
        cacheTimeout: QueryCacheTimeout? = nil,
        resilience: CacheResilience? = nil
    ) async -> Result<GraphQLResult<Query.Data>, GraphQLCacheError> {
        var value: Query.Data?
        let start = startFetch(
            query, cachePolicy: cachePolicy, cacheTimeout: cacheTimeout, resilience: resilience, into: &value)
        switch start {
        case .answered(let answer):
            // `startFetch` answers only with a value.
            if let value {
                return .success(
                    GraphQLResult(data: value, source: .cache, age: answer.age, queryKey: answer.queryKey))
            }
            return .failure(.answerWithoutValue())
        case .failed(let error):
            return .failure(error)
        case .pending(let pending):
            return await finishFetch(pending, as: Query.Data.self)
        }
    }

    /// The answers of a query as they arrive: two for `.returnCacheDataAndFetch` when something is cached (the
    /// cached one, then the network's), otherwise one. Cancelling the iteration cancels the work.
    public func fetchResults<Query: GraphQLQuery>(
        query: Query,
        cachePolicy: GraphQLCachePolicy? = nil,
        cacheTimeout: QueryCacheTimeout? = nil
    ) -> AsyncStream<Result<GraphQLResult<Query.Data>, GraphQLCacheError>> {
        let request: PreparedRequest
        do {
            request = try prepareQuery(query, explicitTimeout: cacheTimeout)
        } catch {
            return AsyncStream { continuation in
                continuation.yield(.failure(error))
                continuation.finish()
            }
        }
        return stream(request, policy: cachePolicy ?? .default, reader: typedReader(Query.Data.self))
    }

    /// Sends a mutation and merges its result into the store under `MUTATION_ROOT`: objects with cache keys
    /// update every query that reads them. Mutations are never answered from the cache nor de-duplicated.
    public func perform<Mutation: GraphQLMutation>(
        mutation: Mutation
    ) async -> Result<GraphQLResult<Mutation.Data>, GraphQLCacheError> {
        let request: PreparedRequest
        do {
            let document = try documents.prepared(
                Mutation.self,
                addingTypenames: configuration.addsTypenameToSelections
            )
            request = try PreparedRequest(document, variables: mutation.variables, kind: .mutation)
        } catch {
            return .failure(error)
        }
        return await performMutation(request, reader: typedReader(Mutation.Data.self))
    }

    // MARK: - Untyped operations

    /// ``fetch(query:cachePolicy:cacheTimeout:resilience:)`` for an operation known only at run time; the answer is
    /// the `data` object (with the `__typename`s the client added).
    public func fetch(
        operation: UntypedGraphQLOperation,
        cachePolicy: GraphQLCachePolicy? = nil,
        cacheTimeout: QueryCacheTimeout? = nil,
        resilience: CacheResilience? = nil
    ) async -> Result<GraphQLResult<GraphQLJSONObject>, GraphQLCacheError> {
        let request: PreparedRequest
        do {
            request = try prepareUntyped(operation, kind: .query, explicitTimeout: cacheTimeout)
            try checkCallResilience(resilience)
        } catch {
            return .failure(error)
        }
        return await execute(request, policy: cachePolicy ?? .default, reader: jsonReader, resilience: resilience)
    }

    /// ``fetchResults(query:cachePolicy:cacheTimeout:)`` for an operation known only at run time.
    public func fetchResults(
        operation: UntypedGraphQLOperation,
        cachePolicy: GraphQLCachePolicy? = nil,
        cacheTimeout: QueryCacheTimeout? = nil
    ) -> AsyncStream<Result<GraphQLResult<GraphQLJSONObject>, GraphQLCacheError>> {
        let request: PreparedRequest
        do {
            request = try prepareUntyped(operation, kind: .query, explicitTimeout: cacheTimeout)
        } catch {
            return AsyncStream { continuation in
                continuation.yield(.failure(error))
                continuation.finish()
            }
        }
        return stream(request, policy: cachePolicy ?? .default, reader: jsonReader)
    }

    /// ``perform(mutation:)`` for a mutation known only at run time.
    public func perform(
        operation: UntypedGraphQLOperation
    ) async -> Result<GraphQLResult<GraphQLJSONObject>, GraphQLCacheError> {
        let request: PreparedRequest
        do {
            request = try prepareUntyped(operation, kind: .mutation, explicitTimeout: nil)
        } catch {
            return .failure(error)
        }
        return await performMutation(request, reader: jsonReader)
    }

    // MARK: - Keys, timestamps, background work, statistics

    /// The key a query's answer is tracked under (operation name and canonical variables).
    public func queryKey<Query: GraphQLQuery>(for query: Query) -> GraphQLQueryKey {
        GraphQLQueryKey(operationName: Query.operationName, variables: query.variables)
    }

    /// When each query was last fetched from the network and stored, oldest first.
    public var queryTimestamps: [GraphQLQueryTimestamp] {
        existingState?.timestamps.snapshot() ?? []
    }

    /// Forgets every query timestamp and makes every answer cached so far stale: the next cache-first read of
    /// each query goes to the network (cache-only reads still answer, marked stale). Returns how many
    /// timestamps were forgotten.
    @discardableResult
    public func clearTimestamps() -> Int {
        state().timestamps.removeAll(staleBefore: store.clock.now())
    }

    /// Waits until the background refreshes started by `.returnCacheDataAndFetch` have finished.
    public func waitForBackgroundRefreshes() async {
        await backgroundTasks.drain()
    }

    /// Upstream calls in flight now (each possibly shared by several callers), of every client over this core.
    public var inFlightRequestCount: Int {
        flights.count
    }

    /// Callers waiting for those calls now, the caller that started each included: how many answers the calls in
    /// flight will hand out (every client over this core).
    public var inFlightWaiterCount: Int {
        flights.waiterCount
    }

    /// The session's counters: reads (hits, stale hits, misses), stores, upstream calls and joins.
    public func statistics() -> CacheStatistics {
        store.statistics(for: scope)
    }

    /// A manager for this session's GraphQL cache (the seeds' `GraphQLCacheManaging`).
    public func cacheManager(
        configuration: GraphQLCacheManager.Configuration = GraphQLCacheManager.Configuration()
    ) -> GraphQLCacheManager {
        GraphQLCacheManager(client: self, configuration: configuration)
    }
}

/// A client's second level, on the heap only when there is one.
private final class SecondLevelHolder: Sendable {
    let level: any GraphQLSecondLevel

    init(_ level: any GraphQLSecondLevel) {
        self.level = level
    }
}
