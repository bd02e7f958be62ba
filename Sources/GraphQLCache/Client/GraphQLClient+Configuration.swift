import CacheCore
import CurlHTTP
import GraphQLLanguage

extension GraphQLClient {
    /// How a client talks to its upstream and what it does with imperfect answers. Every field has a
    /// documented default.
    public struct Configuration: Sendable {
        /// What to do with an answer that carries both `data` and `errors`.
        public enum PartialDataPolicy: Sendable, Hashable {
            /// Fail with `graphQLErrors`; the partial data is on the error (``GraphQLCacheError/partialData``)
            /// and nothing is stored. The default: a field that failed reads as `null`, which must not
            /// overwrite a good cached value.
            case fail
            /// Deliver the data with the errors in ``GraphQLResult/errors``; store nothing.
            case deliver
            /// Deliver the data with the errors, and store it (the `null`s included).
            case deliverAndCache
        }

        /// Send queries as `GET /graphql?query=…&operationName=…&variables=…` (mutations are always POSTed),
        /// for upstreams behind an HTTP cache or with persisted-query style routing. Default: false (POST).
        public var usesGETForQueries: Bool
        /// Automatic persisted queries (APQ, as Apollo defines them): send a document's SHA-256 instead of the
        /// document, and the document only when the upstream answers `PersistedQueryNotFound` (once per document,
        /// then the upstream knows the hash). On `PersistedQueryNotSupported` every client of the same store sends
        /// whole documents to that upstream (its URL) from then on: the sessions of a hub learn it once
        /// (``GraphQLNormalizedStore/resetPersistedQuerySupport()`` forgets it). Saves the document's bytes on every request and lets an HTTP cache in front of the
        /// upstream key GET requests on a short URL. Default: false.
        public var usesAutomaticPersistedQueries: Bool
        /// With ``usesAutomaticPersistedQueries``, send queries that go by hash alone as
        /// `GET ?operationName=…&variables=…&extensions=…`, so intermediaries can cache them (a retry with the
        /// document is POSTed unless ``usesGETForQueries``). Mutations are always POSTed. Default: false.
        public var usesGETForHashedQueries: Bool
        /// Headers sent with every request, before the session's credentials. Default:
        /// `Accept: application/json`.
        public var headers: CurlHTTPClient.Headers
        /// A total timeout per request; `nil` uses the transport's (30 s by default). Default: nil.
        public var requestTimeout: Duration?
        /// See ``PartialDataPolicy``. Default: `.fail`.
        public var partialDataPolicy: PartialDataPolicy
        /// Add `__typename` to every selection set below the root before sending, as Apollo does, so that key
        /// providers and fragments on interfaces always find the type. Default: true (required once key
        /// providers are registered; without it, an object lacking `__typename` fails the write).
        public var addsTypenameToSelections: Bool
        /// Decides per operation whether and how long answers are cached, on top of the query's own timeout:
        /// it gets the operation name and the timeout the call asked for (explicit `cacheTimeout:`, else the
        /// query type's, else `.useDefault`) and returns the timeout to apply, or `nil` to neither read nor
        /// store (the facade's per-domain settings plug in here). Returning `.useDefault` keeps the per-type,
        /// per-field and global rules. Consulted once per `fetch`. Default: nil (the call's timeout applies).
        public var cachingPolicy:
            (@Sendable (_ operationName: String, _ requested: QueryCacheTimeout) -> QueryCacheTimeout?)?
        /// How many query timestamps the client keeps before forgetting the oldest. Default 10,000.
        public var maximumTrackedQueries: Int
        /// `userInfo` for the decoders of typed results. Default: empty.
        public var decodingUserInfo: [CodingUserInfoKey: any Sendable]
        /// Hears of every upstream fetch and second-level read (see `CacheInstrumentation`). Default: nil.
        public var instrumentation: (any CacheInstrumentation)?
        /// Share answers the upstream declared `PUBLIC` with the other sessions of the same store that opted in too.
        ///
        /// An answer is shared only when every part of it is public: no `Cache-Control: private` and no `PRIVATE`
        /// hint, no `Vary: *` and no `Vary` on a credential (see ``credentialHeaderNames``), no `Set-Cookie`, no
        /// malformed hint, and a positive `maxAge` (the header's, or a hint on every root field; a header alone must
        /// also say `public`). It is kept whole, keyed by the upstream URL, the configured ``headers``, the document's
        /// hash, the variables and, for every header its `Vary` names, the value the session sends (its credentials
        /// over the configured headers, after the transport's request decorator), never by the session's
        /// credentials, and a cache-first miss of another session with the same query is answered
        /// from it (merged into that session's scope, with its original write time) while it is within its
        /// `maxAge` and the shortest lifetime of this client's own rules. `PRIVATE` answers never leave their
        /// session. Default: false (every session asks the upstream for itself).
        public var sharesPublicResponses: Bool
        /// Header names that count as credentials for ``sharesPublicResponses``, besides `Authorization`, `Cookie`,
        /// `Proxy-Authorization` and every header the session's credentials set: an answer whose `Vary` names one
        /// depends on who asks and is never shared. Case-insensitive. Default: `["X-Api-Key"]`
        /// (`UpstreamCredentials.defaultExtraCredentialHeaderNames`).
        public var credentialHeaderNames: [String]
        /// What a cache-first query does when the upstream is slow or failing, for every operation without options
        /// of its own: the door's default, under ``GraphQLCacheConfig/operationResilience`` and a call's
        /// `resilience:`. A hub hands its own default here. Default: `.none` (nothing on; a fresh hit costs nothing
        /// more).
        ///
        /// - Fail-safe: when the upstream fails (transport failure, timeout, 5xx, an answer that is not GraphQL),
        ///   the query's records as of their last write are served while they are at most `failSafeMaxDuration`
        ///   past their freshness, marked stale (``GraphQLResult/staleReason`` `failSafe`, ``GraphQLResult/age``),
        ///   and the query is not sent again for `failSafeThrottleDuration`. GraphQL errors are an answer, not a
        ///   failure. Purges keep records that long (``Shared/recordPurgeCutoff(now:grace:)``).
        /// - Soft timeout: with such a stale answer at hand (fail-safe on), a caller waits at most `softTimeout`;
        ///   the upstream call goes on in the background (one per query, however many callers) and is stored when
        ///   it lands, unless the scope was cleared or the session ended meanwhile.
        /// - Hard timeout: with nothing to serve, a caller waits at most `hardTimeout` and gets
        ///   ``GraphQLCacheError/Code/timedOut`` (with a stale answer at hand and no soft timeout, the stale answer).
        /// - Eager refresh: a fresh hit past `eagerRefreshThreshold` of its lifetime is answered at once and starts
        ///   one background refresh per query (operation, variables and scope).
        public var resilience: CacheResilience

        /// Creates a configuration; each parameter defaults to the value documented on its property.
        public init(
            usesGETForQueries: Bool = false,
            headers: CurlHTTPClient.Headers = ["Accept": "application/json"],
            requestTimeout: Duration? = nil,
            partialDataPolicy: PartialDataPolicy = .fail,
            addsTypenameToSelections: Bool = true,
            cachingPolicy: (@Sendable (String, QueryCacheTimeout) -> QueryCacheTimeout?)? = nil,
            maximumTrackedQueries: Int = 10_000,
            decodingUserInfo: [CodingUserInfoKey: any Sendable] = [:],
            usesAutomaticPersistedQueries: Bool = false,
            usesGETForHashedQueries: Bool = false,
            sharesPublicResponses: Bool = false,
            credentialHeaderNames: [String] = UpstreamCredentials.defaultExtraCredentialHeaderNames,
            resilience: CacheResilience = .none
        ) {
            self.resilience = resilience
            self.sharesPublicResponses = sharesPublicResponses
            self.credentialHeaderNames = credentialHeaderNames
            self.usesAutomaticPersistedQueries = usesAutomaticPersistedQueries
            self.usesGETForHashedQueries = usesGETForHashedQueries
            self.usesGETForQueries = usesGETForQueries
            self.headers = headers
            self.requestTimeout = requestTimeout
            self.partialDataPolicy = partialDataPolicy
            self.addsTypenameToSelections = addsTypenameToSelections
            self.cachingPolicy = cachingPolicy
            self.maximumTrackedQueries = maximumTrackedQueries
            self.decodingUserInfo = decodingUserInfo
        }
    }

    /// The session's credentials: headers and cookie jar (shared with REST's `APIService`).
    public typealias Credentials = UpstreamCredentials
}
