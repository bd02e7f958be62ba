import CacheCore
import CurlHTTP
import GraphQLCache
import RESTCache

extension CacheHub {
    /// Where the upstreams are and how the hub talks to them. Defaults are documented per field.
    public struct Configuration: Sendable {
        /// The REST upstream's root, e.g. `https://api.example.com`.
        public var restBaseURL: String
        /// The GraphQL endpoint, e.g. `https://api.example.com/graphql`.
        public var graphQLEndpoint: String
        /// The HTTP client's settings (timeouts, limits, TLS). Default: `CurlHTTPClient.Configuration`'s.
        public var transport: CurlHTTPClient.Configuration
        /// REST behaviour (HTTP caching semantics, caching and invalidation rules). The hub adds the settings'
        /// storage policy and account learning to it. Default: RESTCache's defaults.
        public var rest: APIService.Configuration
        /// How GraphQL objects are keyed and how types relate. Default: `__typename:id` keys.
        public var graphQLCache: GraphQLCacheConfiguration
        /// The GraphQL client's behaviour (GET for queries, headers, partial data). The hub adds the settings'
        /// per-operation policy to it. Default: GraphQLCache's defaults.
        public var graphQL: GraphQLClient.Configuration
        /// Per-type and per-field GraphQL freshness (`Account`: 30 s, `Account.balance`: 10 s). The global default
        /// and the timeout switch come from the settings. Default: none.
        public var graphQLFreshness: GraphQLCacheConfig
        /// How GraphQL account clears find an account's records. Default: `Account:{id}`.
        public var graphQLCacheManager: GraphQLCacheManager.Configuration
        /// How account ids and tokens are connected. Default: fields `id` and `accountToken`.
        public var accounts: AccountResolver.Configuration
        /// REST paths whose answers teach the session's account resolver id/token pairs. Default: none (the resolver
        /// learns nothing by itself); the fixture bank's are ``bankingAccountLearningPaths``.
        public var accountLearningPaths: [PathPattern]
        /// How REST entries and GraphQL records of the same entity are tied together. Default: none (a change through
        /// one protocol leaves the other's copy to expire or to a clear); the fixture bank's are
        /// ``EntityLinks/banking``.
        public var entityLinks: EntityLinks
        /// Caches of your own cleared with each session (logout, expiry). Default: none.
        public var sessionCacheParts: [any SessionCachePart]
        /// When idle sessions end and expired data is purged without anyone asking. Default: every 10 s, with a
        /// 60 s grace for expired REST entries.
        public var maintenance: Maintenance

        /// The hub's periodic housekeeping (see ``CacheHub/runMaintenance()``).
        public struct Maintenance: Sendable {
            /// How often the hub ends idle sessions and purges expired data; nil turns the task off (tests with a
            /// manual clock, or a server that calls ``CacheHub/runMaintenance()`` itself). Default 10 seconds.
            public var interval: Duration?
            /// How long expired data is kept past its expiry before the purge removes it: stale entries serve
            /// stale reads and ETag revalidation. An entry stored under a policy that may serve it stale for longer
            /// (stale-if-error's maximum staleness, stale-while-revalidate's grace) is kept for that window, and
            /// this long after it. Default 60 seconds.
            public var expiredDataGrace: Duration

            public init(interval: Duration? = .seconds(10), expiredDataGrace: Duration = .seconds(60)) {
                self.interval = interval
                self.expiredDataGrace = expiredDataGrace
            }
        }
        /// Carries every clear to the other replicas of the fleet and applies theirs; nil keeps the hub an island.
        /// Default: nil.
        public var replication: ReplicationConfiguration?
        /// A second level shared by the replicas (L1 miss → L2 → upstream), so a new replica starts warm and a logout
        /// is one command fleet-wide. Default: nil (each replica keeps to its own memory).
        public var secondLevel: SecondLevelConfiguration?
        /// Hears of upstream fetches (REST and GraphQL), second-level reads, replicated clears and session endings,
        /// for tracing and latency metrics (see `CacheInstrumentation`). Default: nil (no cost).
        public var instrumentation: (any CacheInstrumentation)?
        /// How the value door (``CacheSession/values``, ``CacheHub/values``) turns values into bytes: what the
        /// memory budget is charged and what the second level stores. Default: ``JSONValueCoder``.
        public var valueCoder: any ValueCoder = JSONValueCoder()
        /// A random extra on each value's lifetime (at most its bound), so values a fleet wrote together do not
        /// expire together: the value door's counterpart of ``rest``'s and the GraphQL freshness rules' jitter.
        /// Default ``CacheJitter/none``.
        public var valueJitter: CacheJitter = .none
        /// The hub's default resilience options (fail-safe, soft and hard timeouts, eager refresh) for every front
        /// door: under each domain's options from the settings file, which are under each call's own. The REST and
        /// GraphQL doors take ``rest``'s and ``graphQL``'s `resilience` over this one; the value door takes it as is. Checked when the hub is made
        /// (an invalid option throws `invalidSettings`). Default ``CacheResilience/none``.
        public var resilience: CacheResilience = .none

        public init(
            restBaseURL: String,
            graphQLEndpoint: String,
            transport: CurlHTTPClient.Configuration = .init(),
            rest: APIService.Configuration = .init(),
            graphQLCache: GraphQLCacheConfiguration = .typenameAndID(),
            graphQL: GraphQLClient.Configuration = .init(),
            graphQLFreshness: GraphQLCacheConfig = .init(),
            graphQLCacheManager: GraphQLCacheManager.Configuration = .init(),
            accounts: AccountResolver.Configuration = .init(),
            accountLearningPaths: [PathPattern] = [],
            entityLinks: EntityLinks = EntityLinks(),
            sessionCacheParts: [any SessionCachePart] = [],
            maintenance: Maintenance = Maintenance(),
            replication: ReplicationConfiguration? = nil,
            secondLevel: SecondLevelConfiguration? = nil
        ) {
            self.restBaseURL = restBaseURL
            self.graphQLEndpoint = graphQLEndpoint
            self.transport = transport
            self.rest = rest
            self.graphQLCache = graphQLCache
            self.graphQL = graphQL
            self.graphQLFreshness = graphQLFreshness
            self.graphQLCacheManager = graphQLCacheManager
            self.accounts = accounts
            self.accountLearningPaths = accountLearningPaths
            self.entityLinks = entityLinks
            self.sessionCacheParts = sessionCacheParts
            self.maintenance = maintenance
            self.replication = replication
            self.secondLevel = secondLevel
        }
    }
}

extension CacheHub.Configuration {
    /// The account-learning paths of the fixture bank's API: its account list and account routes.
    public static let bankingAccountLearningPaths: [PathPattern] = ["/api/accounts", "/api/accounts/**"]

    /// The same configuration with the fixture bank's presets: ``EntityLinks/banking`` and
    /// ``bankingAccountLearningPaths``. The hub's settings choose the domain map apart
    /// (``CacheSettings/banking``, or `"domainMap": "banking"` in the settings file).
    public func withBankingPresets() -> CacheHub.Configuration {
        var configuration = self
        configuration.entityLinks = .banking
        configuration.accountLearningPaths = Self.bankingAccountLearningPaths
        return configuration
    }
}
