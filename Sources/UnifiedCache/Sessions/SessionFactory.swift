import CacheCore
import CurlHTTP
import GraphQLCache
import RESTCache
import Synchronization

/// Makes a session's parts from what the hub shares (client, stores, settings, documents), and charges what a
/// session costs by itself to the memory budget, so the budget bounds the whole process and not only the
/// cached payloads.
///
/// A class of its own rather than the hub, so sessions can make their parts lazily without holding the hub.
final class SessionFactory: Sendable {
    /// Bytes one live session costs before it is used: the session object, its slot in the registry and its
    /// scope string (measured with `ucache-bench sessions`; a long session id or token adds its length).
    static let sessionBytes = 640
    /// Bytes a session's parts add once made: REST service, GraphQL client, cookie jar (a libcurl share
    /// handle), resolver and manager (measured with `ucache-bench sessions`).
    static let partsBytes = 6_144

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
    /// The GraphQL freshness rules new sessions start with (validated; replaced on a settings reload).
    let freshness: Mutex<GraphQLCacheConfig>

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
        secondLevel: SecondLevelFront? = nil
    ) throws(UnifiedCacheError) {
        let freshness = GraphQLSettingsBridge.cacheConfig(settings.current, base: configuration.graphQLFreshness)
        do {
            try freshness.validate()
        } catch {
            throw UnifiedCacheError(
                code: .invalidSettings, message: "The GraphQL freshness rules are invalid.", underlying: error)
        }
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
        self.freshness = Mutex(freshness)
    }

    // MARK: Memory

    /// Charges a new session's own cost; the caller asks the budget for room afterwards, outside its locks.
    func chargeSession() {
        budget.charge(Self.sessionBytes)
    }

    /// Charges the parts of a session used for the first time, making room if that goes over the budget.
    func chargeParts() {
        budget.charge(Self.partsBytes)
        if budget.isOverLimit {
            budget.reclaimExcess()
        }
    }

    /// Releases what an ended session was charged.
    func release(partsMade: Bool) {
        budget.release(Self.sessionBytes + (partsMade ? Self.partsBytes : 0))
    }

    // MARK: Parts

    func makeParts(id: String, scope: CacheScope, credentials: UpstreamCredentials) -> SessionParts {
        let jar = credentials.cookieJar ?? CookieJar()
        let sessionCredentials = UpstreamCredentials(headers: credentials.headers, cookieJar: jar)
        let accounts = AccountResolver(configuration: configuration.accounts)
        var restConfiguration = configuration.rest
        let links = configuration.entityLinks
        restConfiguration.storagePolicy = RESTSettingsBridge.storagePolicy(settings, links: links)
        restConfiguration.instrumentation = restConfiguration.instrumentation ?? configuration.instrumentation
        let learningPaths = configuration.accountLearningPaths
        let graphQLStore = graphQLStore
        let restStore = restStore
        let replicationLink = replication?.link(for: scope)
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
            clock: clock,
            secondLevel: secondLevel.flatMap { front in
                front.configuration.storesREST ? SecondLevelRESTAdapter(front: front, links: links, scope: scope) : nil
            }
        )
        var graphQLConfiguration = configuration.graphQL
        graphQLConfiguration.cachingPolicy = GraphQLSettingsBridge.cachingPolicy(settings)
        graphQLConfiguration.instrumentation = graphQLConfiguration.instrumentation ?? configuration.instrumentation
        let graphQL: GraphQLClient
        do {
            graphQL = try GraphQLClient(
                url: configuration.graphQLEndpoint,
                transport: client,
                store: graphQLStore,
                scope: scope,
                credentials: sessionCredentials,
                configuration: graphQLConfiguration,
                cacheConfig: freshness.withLock { $0 },
                documents: documents,
                secondLevel: secondLevel.flatMap { front in
                    front.configuration.storesGraphQL ? SecondLevelGraphQLAdapter(front: front, scope: scope) : nil
                }
            )
        } catch {
            // `freshness` only ever holds rules that validated, which is all the client's initializer checks.
            preconditionFailure("validated GraphQL freshness rules were refused: \(error)")
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
            replication: replicationLink,
            secondLevel: secondLevel
        )
        return SessionParts(rest: rest, graphQL: graphQL, cookieJar: jar, cacheManager: manager, accounts: accounts)
    }
}
