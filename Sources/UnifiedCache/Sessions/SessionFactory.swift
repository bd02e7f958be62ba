import CacheCore
import CurlHTTP
import GraphQLCache
import RESTCache
import Synchronization

/// Makes a session's parts from what the hub shares (client, stores, settings, documents), and charges what a
/// session costs by itself to the memory budget, so the budget bounds the whole process and not only the
/// cached payloads.
///
/// The REST services and GraphQL clients of all sessions share one core each (upstream, configuration, in-flight
/// calls, freshness rules), made here once; a session's parts are handles over them holding only its scope,
/// credentials and cookie jar.
///
/// A class of its own rather than the hub, so sessions can make their parts lazily without holding the hub.
final class SessionFactory: CookieStoreAccounting {
    /// The charge model, in bytes, measured with `ucache-bench sessions` (release build, RSS growth over 200,000
    /// sessions; see ``SessionCharge``).
    static let charge = SessionCharge.measured
    /// A session's second-level namespace, kept once a view with a second level named an entry: its 22 characters
    /// on the heap (a string's header and storage, rounded to the allocator's 64-byte chunk).
    static let secondLevelNamespaceCharge = 64

    let configuration: CacheHub.Configuration
    let client: CurlHTTPClient
    let settings: SettingsStore
    let budget: MemoryBudget
    let restStore: CacheStore
    let graphQLStore: GraphQLNormalizedStore
    let clock: any CacheClock
    let documents: GraphQLDocumentCache
    /// Publishes the sessions' clears to the other replicas; nil without replication.
    let replication: ReplicationCoordinator?
    /// The shared second level; nil without one.
    let secondLevel: SecondLevelFront?
    /// What every session's value door shares.
    let values: ValueCore
    /// The REST core every session's service runs on.
    let restCore: APIService.Shared
    /// The GraphQL core every session's client runs on; its freshness rules are replaced on a settings reload.
    let graphQLCore: GraphQLClient.Shared

    init(
        configuration: CacheHub.Configuration,
        client: CurlHTTPClient,
        settings: SettingsStore,
        budget: MemoryBudget,
        restStore: CacheStore,
        graphQLStore: GraphQLNormalizedStore,
        clock: any CacheClock,
        documents: GraphQLDocumentCache,
        replication: ReplicationCoordinator?,
        secondLevel: SecondLevelFront? = nil,
        values: ValueCore
    ) throws(UnifiedCacheError) {
        let freshness = GraphQLSettingsBridge.cacheConfig(settings.current, base: configuration.graphQLFreshness)
        // The GraphQL domains' resilience options arrive per operation through the freshness rules.
        var graphQLConfiguration = configuration.graphQL.inheriting(from: configuration)
        graphQLConfiguration.cachingPolicy = GraphQLSettingsBridge.cachingPolicy(settings)
        do {
            graphQLCore = try GraphQLClient.Shared(
                url: configuration.graphQLEndpoint, transport: client, store: graphQLStore,
                configuration: graphQLConfiguration, cacheConfig: freshness, documents: documents)
        } catch {
            throw UnifiedCacheError(
                code: .invalidSettings, message: "The GraphQL freshness rules are invalid.", underlying: error)
        }
        var restConfiguration = configuration.rest.inheriting(from: configuration)
        restConfiguration.storagePolicy = RESTSettingsBridge.storagePolicy(settings, links: configuration.entityLinks)
        restConfiguration.domainResilience = RESTSettingsResilience(settings: settings)
        // Each session's service inspects answers with its own inspector (see `makeParts`).
        restConfiguration.responseInspector = nil
        restCore = APIService.Shared(
            baseURL: configuration.restBaseURL, client: client, configuration: restConfiguration, clock: clock)
        self.configuration = configuration
        self.client = client
        self.settings = settings
        self.budget = budget
        self.restStore = restStore
        self.graphQLStore = graphQLStore
        self.clock = clock
        self.documents = documents
        self.replication = replication
        self.secondLevel = secondLevel
        self.values = values
    }

    // MARK: Memory

    /// Charges a new session's own cost; the caller asks the budget for room afterwards, outside its locks.
    func chargeSession() {
        budget.charge(Self.charge.session)
    }

    /// Charges a part a session made on first use, making room if that goes over the budget.
    func chargeParts(_ bytes: Int) {
        budget.chargeAndReclaim(bytes)
    }

    /// Releases what an ended session was charged: its own cost and its parts' (its cookie store aside, see
    /// ``cookieStoreMade()``).
    func release(partsCharge: Int) {
        budget.release(Self.charge.session + partsCharge)
    }

    /// A session's own cookie jar made its libcurl store: charged here, released when the session ends (its jar
    /// is retired then, so no store is made, nor charged, after that).
    func cookieStoreMade() {
        chargeParts(Self.charge.cookieStore)
    }

    /// Releases the cookie store of an ended session's own jar.
    func releaseCookieStore() {
        budget.release(Self.charge.cookieStore)
    }

    // MARK: Parts

    /// A session's REST service: a view over the hub's REST core and the session (its binding), made on each
    /// access.
    func makeREST(scope: CacheScope, binding: CacheSession) -> APIService {
        APIService(
            shared: restCore,
            cache: CacheManager(store: restStore, scope: scope),
            binding: binding,
            secondLevel: secondLevel.flatMap { front in
                front.configuration.storesREST
                    ? SecondLevelRESTAdapter(
                        front: front, links: configuration.entityLinks, scope: scope,
                        session: binding.secondLevelNamespace(front)) : nil
            }
        )
    }

    /// A session's GraphQL client: a view over the hub's GraphQL core and the session (its binding), made on
    /// each access.
    func makeGraphQL(scope: CacheScope, binding: CacheSession) -> GraphQLClient {
        GraphQLClient(
            shared: graphQLCore,
            scope: scope,
            binding: binding,
            secondLevel: secondLevel.flatMap { front in
                front.configuration.storesGraphQL
                    ? SecondLevelGraphQLAdapter(
                        front: front, scope: scope, session: binding.secondLevelNamespace(front))
                    : nil
            }
        )
    }

    /// The clearing methods over a session's parts: a view, made on each access.
    func manager(
        id: String, scope: CacheScope, graphQL: GraphQLClient, cookieJar: CookieJar, accounts: AccountResolver
    ) -> DefaultUnifiedCacheManager {
        DefaultUnifiedCacheManager(
            scope: scope,
            rest: CacheManager(store: restStore, scope: scope),
            graphQLClient: graphQL,
            graphQL: graphQL.cacheManager(configuration: configuration.graphQLCacheManager),
            cookieJar: cookieJar,
            settings: settings,
            accounts: accounts,
            sessionID: id,
            extraParts: configuration.sessionCacheParts,
            replication: replication?.link(for: scope),
            secondLevel: secondLevel,
            values: values.store
        )
    }

    /// A session's successful REST answer: learns account pairs from the configured paths, and for a mutation
    /// evicts the entities it changed from the normalized store and the REST copies too.
    func inspect(
        method: CurlHTTPClient.Method, path: String, response: CurlHTTPClient.Response, scope: CacheScope,
        accounts: () -> AccountResolver
    ) {
        if configuration.accountLearningPaths.contains(where: { $0.matches(method: method.rawValue, path: path) }) {
            accounts().learn(fromJSON: response.body)
        }
        guard method.isMutating else { return }
        let changes = configuration.entityLinks.changes(method: method.rawValue, path: path, body: response.body)
        replication?.link(for: scope)?.publishRESTMutation(method: method.rawValue, path: path, changes: changes)
        for (recordKey, fields) in changes {
            if let fields {
                for field in fields { graphQLStore.evictField(field, ofRecord: recordKey, in: scope) }
            } else {
                graphQLStore.removeRecord(recordKey, removingReferences: true, in: scope)
            }
            restStore.clear(entityKey: recordKey, in: scope, reason: .mutation)
        }
    }
}
