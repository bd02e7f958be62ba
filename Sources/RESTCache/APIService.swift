import Foundation
import Synchronization

/// One session's REST access: check the cache, then the network, then store (the seed's `perform(with:)`).
///
/// Bound to one session's scope and credentials. What does not depend on the session (upstream, client,
/// configuration, in-flight de-duplication, background refreshes) lives in a ``Shared`` core: a BFF makes one
/// core and, per logged-in session, services over it: each a view over a ``RESTSessionBinding`` (the session, in
/// the facade) made when needed, or one holding its own credentials.
/// Concurrent identical reads make one upstream call; error answers are never stored; a successful mutation
/// invalidates what it changed.
public final class APIService: Sendable {
    /// What the services of every session share: one per upstream, made once.
    public final class Shared: Sendable {
        /// The upstream's root, without a trailing slash.
        public let baseURL: String
        public let client: CurlHTTPClient
        public let configuration: Configuration
        /// In-flight de-duplication, keyed by scope and request.
        public let requestStates: CachedRequestStateManager
        let clock: any CacheClock
        let backgroundRefreshes = BackgroundTasks()
        /// Keys whose failing upstream is not asked again until the fail-safe throttle ends.
        let failSafeThrottle = FailSafeThrottle<CachedRequestStateManager.Key>()
        /// One eager refresh per key and scope.
        let eagerRefreshes = EagerRefreshGate<CachedRequestStateManager.Key>()
        /// Answers decided by fail-safe, a soft timeout or an eager refresh, per reason (the hub exports them).
        public let staleAnswers = StaleAnswerCounts()
        /// Set once an answer with `Vary` was stored through this core: until then the hit path skips looking for
        /// variants (one lookup per hit instead of a peek and a lookup).
        @usableFromInline let hasVaryingEntries = Atomic<Bool>(false)

        /// Creates the shared core. `clock` must be the clock of the store the services' caches read.
        public init(
            baseURL: String,
            client: CurlHTTPClient,
            configuration: Configuration = Configuration(),
            clock: any CacheClock = SystemCacheClock(),
            requestStates: CachedRequestStateManager = CachedRequestStateManager()
        ) {
            self.baseURL = baseURL.hasSuffix("/") ? String(baseURL.dropLast()) : baseURL
            self.client = client
            self.configuration = configuration
            self.clock = clock
            self.requestStates = requestStates
        }
    }

    /// The core this service shares with the other sessions' services.
    public let shared: Shared
    /// The upstream's root, e.g. `https://api.example.com`; request paths are appended to it.
    public var baseURL: String { shared.baseURL }
    public var client: CurlHTTPClient { shared.client }
    public let cache: any Caching
    /// The session's credentials in force: read when a request is sent, so a request in flight keeps what it
    /// started with. Changed by ``updateCredentials(_:)`` (a token refresh).
    public var credentials: Credentials { binding.credentials }
    public var configuration: Configuration { shared.configuration }
    /// What the service's session lends it: credentials, closed flag, the inspector of successful answers.
    @usableFromInline let binding: any RESTSessionBinding
    /// In-flight de-duplication, shared by the services of one core (keyed by scope).
    public var requestStates: CachedRequestStateManager { shared.requestStates }
    @usableFromInline var clock: any CacheClock { shared.clock }
    @usableFromInline var backgroundRefreshes: BackgroundTasks { shared.backgroundRefreshes }
    /// The fleet's shared second level, asked after a miss in memory and written after a network answer is
    /// stored; nil (the default) keeps the service to its own memory.
    public var secondLevel: (any RESTSecondLevel)? { secondLevelHolder?.level }
    /// Boxed, so a service without a second level (the common case) keeps one word for it.
    private let secondLevelHolder: SecondLevelHolder?

    /// Creates a service for one session with a core of its own. `clock` must be the clock of the store behind
    /// `cache`.
    public convenience init(
        baseURL: String,
        client: CurlHTTPClient,
        cache: any Caching,
        credentials: Credentials = .none,
        configuration: Configuration = Configuration(),
        clock: any CacheClock = SystemCacheClock(),
        requestStates: CachedRequestStateManager = CachedRequestStateManager(),
        secondLevel: (any RESTSecondLevel)? = nil
    ) {
        self.init(
            shared: Shared(
                baseURL: baseURL, client: client, configuration: configuration, clock: clock,
                requestStates: requestStates),
            cache: cache, credentials: credentials, secondLevel: secondLevel)
    }

    /// Creates a session's service over a shared core, holding its own credentials and closed flag: the session's
    /// cache (its scope), credentials and second level, and an inspector of its own replacing the configuration's
    /// (nil keeps the configuration's).
    public convenience init(
        shared: Shared,
        cache: any Caching,
        credentials: Credentials = .none,
        secondLevel: (any RESTSecondLevel)? = nil,
        responseInspector: ResponseInspector? = nil
    ) {
        // Not `??`: through its generic signature each closure is wrapped in a reabstraction thunk of its own.
        let inspector: ResponseInspector?
        if let responseInspector {
            inspector = responseInspector
        } else {
            inspector = shared.configuration.responseInspector
        }
        self.init(
            shared: shared, cache: cache, binding: OwnRESTBinding(credentials: credentials, inspector: inspector),
            secondLevel: secondLevel)
    }

    /// Creates a view over a session: credentials, closed flag and answer inspection are the binding's, so the
    /// service holds nothing that must outlive the call that made it (see ``RESTSessionBinding``). The
    /// configuration's ``Configuration/responseInspector`` is not called: the binding inspects.
    public init(
        shared: Shared,
        cache: any Caching,
        binding: any RESTSessionBinding,
        secondLevel: (any RESTSecondLevel)? = nil
    ) {
        self.shared = shared
        self.cache = cache
        self.binding = binding
        self.secondLevelHolder = secondLevel.map(SecondLevelHolder.init)
    }

    /// Replaces the credentials later requests carry (a refreshed access token); cached entries stay. The cookie
    /// jar is the new credentials' own: pass the old jar to keep the upstream cookies. Over a session binding,
    /// the session's credentials change (every view of it sees them).
    public func updateCredentials(_ credentials: Credentials) {
        binding.updateCredentials(credentials)
    }

    /// Refuses every later request, for good: the owner calls it when the session the service belongs to ends.
    ///
    /// A handler may still hold the service after its session ended (logout, expiry). Without this, its requests
    /// would go upstream with the ended session's credentials and store the answers in the session's scope again,
    /// where nothing would ever clear them and a later session with the same scope could read them. After `close()`,
    /// `perform(with:)` and `performWithSource(with:)` fail at once with `.invalidRequest` carrying
    /// ``RESTCacheError/Code/closed``: nothing is sent, read or stored. An answer already in flight is delivered to
    /// its caller but not stored, and background refreshes not yet sent are not sent. Clearing through ``cache``
    /// keeps working. Over a session binding, the session's services are closed (every view of it).
    public func close() {
        binding.close()
    }

    /// Whether ``close()`` was called (or the session the service is bound to ended).
    public var isClosed: Bool {
        binding.isClosed
    }

    /// Performs a request under its cache policy (the seed's signature).
    @inlinable
    public func perform<T: RequestType>(with request: T) async -> Result<T.Response, API<T.ErrorBody>> {
        await performWithSource(with: request).map { $0.data }
    }

    /// Performs a request and says where the answer came from (cache, network, stale cache).
    @inlinable
    public func performWithSource<T: RequestType>(
        with request: T
    ) async -> Result<DataWithSource<T.Response>, API<T.ErrorBody>> {
        if binding.isClosed { return .failure(.invalidRequest(.serviceClosed)) }
        guard
            let placement = RequestPlan.placement(
                for: request, sessionScope: cache.scope, configuration: configuration,
                sessionCredentials: binding.credentials)
        else {
            return await performUncached(request, placement: nil)
        }
        let policy = request.cachePolicy
        var stale: CachedValue<T.Response>?
        if policy.readsCacheFirst {
            switch read(request, at: placement) {
            case .fresh(let cached):
                let now = clock.now()
                if let floor = eagerRefreshFloor(request),
                    CacheResilience.hasLived(
                        floor, storedAt: cached.entry.storedAt, expiresAt: cached.entry.expiresAt, now: now),
                    refreshEagerlyIfDue(request, placement, cached, now: now)
                {
                    reportServed(.l1, .hit, reason: .eagerRefresh)
                    var answer = cached.withSource(.cache, now: now)
                    answer.staleReason = .eagerRefresh
                    return .success(answer)
                }
                reportServed(.l1, .hit)
                return .success(cached.withSource(.cache, now: now))
            case .stale(let cached): stale = cached
            case .miss: break
            }
        }
        switch policy {
        case .cacheOnly:
            if stale == nil, let answer = await secondLevelAnswer(request, placement) { return .success(answer) }
            return .failure(.cacheMiss)
        case .cacheFirst, .networkOnly:
            if case .cacheFirst = policy {
                switch resilience(for: request, placement: placement) {
                case .success(let options)?:
                    return await resilientFetch(request, placement, stale: stale, options: options)
                case .failure(let error)?: return .failure(error)
                case nil: break
                }
            }
            return await fetch(request, placement, revalidating: stale)
        case .noCache:
            return await performUncached(request, placement: placement)
        case .staleWhileRevalidate(let gracePeriod):
            if let stale, stale.staleness(at: clock.now()) <= gracePeriod {
                backgroundRefreshes.start { _ = await self.fetch(request, placement, revalidating: stale) }
                return serveStale(stale, reason: .softTimeout)
            }
            return await fetch(request, placement, revalidating: stale)
        case .staleIfError(let maximumStaleness):
            // With resilience options on, stale-if-error is their fail-safe with this window.
            switch resilience(for: request, placement: placement) {
            case .success(let options)?: return await resilientFetch(request, placement, stale: stale, options: options)
            case .failure(let error)?: return .failure(error)
            case nil: break
            }
            let result = await fetch(request, placement, revalidating: stale)
            if case .failure(let error) = result, error.isRecoverableFromCache, let stale,
                stale.staleness(at: clock.now()) <= maximumStaleness
            {
                return serveStale(stale, reason: .failSafe)
            }
            return result
        case .networkFirst:
            let result = await fetch(request, placement, revalidating: nil)
            guard case .failure(let error) = result, error.isRecoverableFromCache else { return result }
            switch read(request, at: placement) {
            case .fresh(let cached), .stale(let cached):
                return serveStale(cached, reason: .failSafe)
            case .miss: return result
            }
        }
    }

    /// Waits until the background refreshes started by stale-while-revalidate have finished.
    public func waitForBackgroundRefreshes() async {
        await backgroundRefreshes.drain()
    }

    // MARK: Network

    /// One upstream call for all concurrent identical reads; the answer is stored unless the scope was cleared
    /// meanwhile. A read joins only a call of its own generation (nothing cleared since the call left) and only
    /// when it reads the cache first.
    @inlinable
    func fetch<T: RequestType>(
        _ request: T,
        _ placement: RequestPlan.CachePlacement,
        revalidating stale: CachedValue<T.Response>?,
        refreshingLateAfter lateShare: Double? = nil
    ) async -> Result<DataWithSource<T.Response>, API<T.ErrorBody>> {
        let flightKey = CachedRequestStateManager.Key(scope: placement.scope, key: flightIdentity(request, placement))
        let generation = cache.generation(of: placement.scope)
        // Network-only and network-first reads ask for an answer that left after they asked (pull-to-refresh).
        let joining: CachedRequestStateManager.Joining =
            request.cachePolicy.readsCacheFirst ? .anyCurrentCall : .newCallOnly
        let outcome = await requestStates.run(
            flightKey, generation: generation, joining: joining,
            leading: {
                await self.secondLevelStep(
                    request, placement, generation: generation, revalidating: stale, refreshingLateAfter: lateShare)
            },
            operation: { carry in await self.upstreamRead(request, placement, generation: generation, carry) })
        guard case .answered(let answer) = outcome else { return .failure(.cancelled) }
        if answer.joined { cache.record(.deduplicatedJoin(key: placement.key), in: placement.scope) }
        return answer.value
    }

    /// Requests that differ in their own headers (e.g. `Accept-Language`) must not share a flight.
    @inlinable
    func flightIdentity<T: RequestType>(_ request: T, _ placement: RequestPlan.CachePlacement) -> String {
        let headers = request.headers
        guard headers.count > 0 else { return placement.key }
        return placement.key + "\u{1F}"
            + headers.map { "\($0.name.lowercased())=\($0.value)" }.joined(separator: "\u{1F}")
    }

    /// The first step of a flight, which its leader takes in its own task: the second level's answer (when the
    /// policy reads the cache first), or what the upstream read needs (the generation to write back with, the entry
    /// a 304 would confirm). An eager refresh (`lateShare`) takes the second level's entry only when it has not lived
    /// that share of its life (another replica refreshed it).
    @inlinable
    func secondLevelStep<T: RequestType>(
        _ request: T,
        _ placement: RequestPlan.CachePlacement,
        generation: CacheGeneration,
        revalidating stale: CachedValue<T.Response>?,
        refreshingLateAfter lateShare: Double? = nil
    ) async -> InFlightLeaderStep<Result<DataWithSource<T.Response>, API<T.ErrorBody>>, UpstreamCarry<T.Response>> {
        // A background refresh or a flight that starts after close reads and sends nothing.
        if isClosed { return .answered(.failure(.invalidRequest(.serviceClosed))) }
        guard let secondLevel, request.cachePolicy.readsCacheFirst else {
            return .continuing(UpstreamCarry(visit: SecondLevelVisit(), stale: stale))
        }
        switch await consultSecondLevel(
            secondLevel, request, placement, generation: generation, stale: stale, refreshingLateAfter: lateShare)
        {
        case .served(let answer): return .answered(.success(answer))
        case .upstream(let visit, let revalidating):
            return .continuing(UpstreamCarry(visit: visit, stale: revalidating))
        }
    }

    /// The upstream part of a flight, in its own task: send (conditionally on the stale entry), decode, store in
    /// memory and in the second level.
    @usableFromInline
    func upstreamRead<T: RequestType>(
        _ request: T,
        _ placement: RequestPlan.CachePlacement,
        generation: CacheGeneration,
        _ carry: UpstreamCarry<T.Response>
    ) async -> Result<DataWithSource<T.Response>, API<T.ErrorBody>> {
        if isClosed { return .failure(.invalidRequest(.serviceClosed)) }
        let (visit, stale) = (carry.visit, carry.stale)
        let response: CurlHTTPClient.Response
        switch await send(request, placement: placement, conditionalOn: stale) {
        case .success(let answer): response = answer
        case .failure(let error): return .failure(error)
        }
        let semantics = configuration.honorsHTTPCaching ? HTTPCachingSemantics(headers: response.headers) : .init()
        if response.status == 304, let stale {
            let refreshed = refresh(
                stale, notModified: response, semantics: semantics, request: request, placement: placement, generation,
                restoredTimeout: visit.restoredTimeout)
            rewriteSecondLevel(after: refreshed, visit: visit, request: placement)
            return .success(DataWithSource(data: stale.value, source: .network, wasRevalidated: true))
        }
        let decoded: Result<T.Response, API<T.ErrorBody>> = decode(response, as: request)
        guard case .success(let value) = decoded else {
            return decoded.map { DataWithSource(data: $0, source: .network) }
        }
        if semantics.allowsStoring(shared: placement.isShared),
            let stored = store(
                value, response: response, semantics: semantics, request: request, placement: placement, generation),
            let secondLevel, let secondGeneration = visit.generation
        {
            let entry = secondLevelEntry(status: response.status, body: response.body, metadata: stored)
            secondLevel.write(entry, key: placement.key, in: placement.scope, generation: secondGeneration)
        }
        return .success(DataWithSource(data: value, source: .network))
    }

    /// Fetches without storing: mutations, uncached reads and the no-cache policy.
    @usableFromInline
    func performUncached<T: RequestType>(
        _ request: T,
        placement: RequestPlan.CachePlacement?
    ) async -> Result<DataWithSource<T.Response>, API<T.ErrorBody>> {
        let response: CurlHTTPClient.Response
        switch await send(request, placement: placement, conditionalOn: nil) {
        case .success(let answer): response = answer
        case .failure(let error): return .failure(error)
        }
        if request.method.isMutating, (200..<400).contains(response.status) {
            let targets = invalidateAfterMutation(method: request.method, path: request.path)
            requestStates.retireCalls(in: cache.scope)
            await secondLevel?.invalidate(
                targets, method: request.method, path: request.path, response: response, in: cache.scope)
        }
        return decode(response, as: request).map { DataWithSource(data: $0, source: .network) }
    }

    private func send<T: RequestType>(
        _ request: T,
        placement: RequestPlan.CachePlacement?,
        conditionalOn stale: CachedValue<T.Response>?
    ) async -> Result<CurlHTTPClient.Response, API<T.ErrorBody>> {
        var plan: RequestPlan
        do {
            plan = try RequestPlan(
                request,
                placement: placement,
                baseURL: baseURL,
                credentials: credentials,
                configuration: configuration
            )
        } catch {
            return .failure(.invalidRequest(error))
        }
        if let validators = stale?.entry.metadata.validators, configuration.honorsHTTPCaching {
            if let etag = validators.etag { plan.httpRequest.headers.replaceOrAdd(name: "If-None-Match", value: etag) }
            if let lastModified = validators.lastModified {
                plan.httpRequest.headers.replaceOrAdd(name: "If-Modified-Since", value: lastModified)
            }
        }
        // Closed while the request was being prepared (or waiting for the second level): nothing goes out.
        if isClosed { return .failure(.invalidRequest(.serviceClosed)) }
        let scope = placement?.scope ?? cache.scope
        let activityKey = placement?.key ?? "\(request.method) \(request.path)"
        var outcome = placement == nil ? CacheOutcome.bypass : stale == nil ? .miss : .stale
        if case .noCache = request.cachePolicy { outcome = .bypass }
        do {
            let response = try await execute(
                plan.httpRequest, method: request.method, path: request.path, outcome: outcome)
            if (200..<300).contains(response.status) {
                binding.inspect(method: request.method, path: request.path, response: response)
            }
            cache.record(
                .networkFetch(key: activityKey, status: response.status, duration: response.timings.total), in: scope)
            return .success(response)
        } catch {
            cache.record(.networkFetch(key: activityKey, status: nil, duration: .zero), in: scope)
            return .failure(error.code == .cancelled ? .cancelled : .network(error))
        }
    }
}

extension API {
    /// Failures a cached answer may stand in for: the transport failed or the upstream had a server error.
    @usableFromInline
    var isRecoverableFromCache: Bool {
        switch self {
        case .network: return true
        case .http(let status, _): return status >= 500
        case .decoding, .cacheMiss, .cancelled, .invalidRequest: return false
        }
    }
}

/// A service's second level, on the heap only when there is one.
private final class SecondLevelHolder: Sendable {
    let level: any RESTSecondLevel

    init(_ level: any RESTSecondLevel) {
        self.level = level
    }
}
