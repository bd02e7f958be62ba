import CacheCore
import CurlHTTP

/// Fail-safe, soft and hard timeouts and eager refresh for cache-first reads (see `CacheResilience`): the options
/// of a request are its own (``RequestType/resilience``) over its policy's (`staleIfError`'s maximum staleness is a
/// fail-safe window), over its domain's (``APIService/Configuration/domainResilience``), over the door's
/// (``APIService/Configuration/resilience``).
extension APIService {
    /// The options in force for a read, or nil when none beyond the policy's own is on (the policy then behaves as
    /// it always has). Invalid per-call options are reported as a failure to send.
    @inlinable
    func resilience<T: RequestType>(
        for request: T, placement: RequestPlan.CachePlacement
    ) -> Result<CacheResilience, API<T.ErrorBody>>? {
        var options = request.resilience ?? .none
        if let domainResilience = configuration.domainResilience, domainResilience.setsAnyOptions {
            let metadata = RequestPlan.metadata(for: request, placement: placement)
            if let domain = domainResilience.resilience(
                forKey: placement.key, domains: metadata.domains.union(metadata.tags))
            {
                options = options.merged(over: domain)
            }
        }
        options = options.merged(over: configuration.resilience)
        guard options.isEnabled else { return nil }
        if case .staleIfError(let maximumStaleness) = request.cachePolicy {
            options = options.merged(over: CacheResilience(failSafeMaxDuration: maximumStaleness))
        }
        do {
            return .success(try options.validated())
        } catch {
            return .failure(
                .invalidRequest(
                    RESTCacheError(
                        .invalidConfiguration, "Invalid resilience options: \(error.message)", underlying: error)
                ))
        }
    }

    /// A cache-first read with resilience options: a usable stale entry answers when the upstream fails (fail-safe,
    /// then throttled), is slower than the soft timeout (the call completes in the background and stores its
    /// answer), or exceeds the hard timeout; with nothing to serve, the hard timeout ends the call with a
    /// `CurlHTTPError` of code `timedOut`.
    @usableFromInline
    func resilientFetch<T: RequestType>(
        _ request: T,
        _ placement: RequestPlan.CachePlacement,
        stale: CachedValue<T.Response>?,
        options: CacheResilience
    ) async -> Result<DataWithSource<T.Response>, API<T.ErrorBody>> {
        let now = clock.now()
        let flightKey = CachedRequestStateManager.Key(scope: placement.scope, key: flightIdentity(request, placement))
        let usable = stale.flatMap { cached in
            options.freshness(storedAt: cached.entry.storedAt, expiresAt: cached.entry.expiresAt, now: now)
                == .staleUsable ? cached : nil
        }
        let throttle = shared.failSafeThrottle
        if let usable, throttle.isThrottled(flightKey, at: now) {
            return serveStale(usable, reason: .failSafe)
        }
        let generation = cache.generation(of: placement.scope)
        let softTimeout = usable == nil ? nil : options.softTimeout
        let wait = softTimeout ?? options.hardTimeout
        let outcome = await requestStates.run(
            flightKey, generation: generation, joining: .anyCurrentCall, waitingAtMost: wait,
            leading: {
                () async -> InFlightLeaderStep<
                    Result<DataWithSource<T.Response>, API<T.ErrorBody>>, UpstreamCarry<T.Response>
                > in
                // A caller that found no throttle may lead a call just after another call set one: it asks no one.
                if usable != nil, throttle.isThrottled(flightKey, at: self.clock.now()) {
                    return .answered(.failure(.network(Self.throttledError)))
                }
                let step = await self.secondLevelStep(request, placement, generation: generation, revalidating: stale)
                if case .answered(.success) = step { throttle.lift(flightKey) }
                return step
            },
            operation: { carry in
                let result = await self.boundedUpstreamRead(
                    request, placement, generation: generation, carry, hardTimeout: options.hardTimeout)
                // Decided inside the one shared call, before its callers are released: a caller arriving after the
                // failure finds the throttle, so the failing upstream is asked once per period.
                switch result {
                case .success: throttle.lift(flightKey)
                case .failure(let error):
                    if usable != nil, error.isRecoverableFromCache {
                        throttle.throttle(flightKey, for: options.failSafeThrottleDuration, now: self.clock.now())
                    }
                }
                return result
            })
        switch outcome {
        case .answered(let answer):
            if answer.joined { cache.record(.deduplicatedJoin(key: placement.key), in: placement.scope) }
            if case .failure(let error) = answer.value, error.isRecoverableFromCache, let usable {
                return serveStale(usable, reason: .failSafe)
            }
            return answer.value
        case .timedOut:
            if let usable { return serveStale(usable, reason: softTimeout != nil ? .softTimeout : .failSafe) }
            return .failure(.network(Self.hardTimeoutError(options.hardTimeout)))
        case .cancelled:
            return .failure(.cancelled)
        }
    }

    /// The upstream read, given up after the hard timeout (the transfer is cancelled) with a timeout error. The
    /// second level was read before, by the flight's leader, within its own read deadline.
    private func boundedUpstreamRead<T: RequestType>(
        _ request: T,
        _ placement: RequestPlan.CachePlacement,
        generation: CacheGeneration,
        _ carry: UpstreamCarry<T.Response>,
        hardTimeout: Duration?
    ) async -> Result<DataWithSource<T.Response>, API<T.ErrorBody>> {
        let outcome = await CacheDeadlineRace.race(hardTimeout) {
            await self.upstreamRead(request, placement, generation: generation, carry)
        }
        switch outcome {
        case .answered(let result): return result
        case .timedOut: return .failure(.network(Self.hardTimeoutError(hardTimeout)))
        case .cancelled: return .failure(.cancelled)
        }
    }

    /// What a call that found its key throttled answers its callers with: recoverable, so they serve the stale
    /// entry.
    static var throttledError: CurlHTTPError {
        CurlHTTPError(.notRetried, "The upstream failed moments ago; its fail-safe throttle is on.")
    }

    /// What a read that waited its hard timeout with nothing to serve fails with.
    static func hardTimeoutError(_ hardTimeout: Duration?) -> CurlHTTPError {
        CurlHTTPError(
            .timedOut, "No answer from the upstream within the hard timeout (\(hardTimeout ?? .zero)).")
    }

    /// Answers with a stale entry, reporting why.
    @usableFromInline
    func serveStale<Value: Sendable, ErrorBody: Sendable>(
        _ stale: CachedValue<Value>, reason: CacheStaleReason
    ) -> Result<DataWithSource<Value>, API<ErrorBody>> {
        reportServed(.l1, .stale, reason: reason)
        var answer = stale.withSource(.staleCache, now: clock.now())
        answer.staleReason = reason
        return .success(answer)
    }

    /// The lowest eager-refresh threshold that could apply to a request (its own, its domains', the door's), or nil
    /// when none is set. Cheap on purpose (every fresh hit pays it): a hit younger than this share of its lifetime
    /// is answered without working out, merging and validating the options in force.
    @inlinable
    func eagerRefreshFloor<T: RequestType>(_ request: T) -> Double? {
        var floor = configuration.resilience.eagerRefreshThreshold
        if let own = request.resilience?.eagerRefreshThreshold { floor = Swift.min(floor ?? own, own) }
        if let lowest = configuration.domainResilience?.lowestEagerRefreshThreshold {
            floor = Swift.min(floor ?? lowest, lowest)
        }
        return floor
    }

    /// On a fresh hit: when the entry is past its eager-refresh threshold, starts one background refresh for it
    /// (one per key and scope across concurrent hits). Returns whether this hit started it.
    @usableFromInline
    func refreshEagerlyIfDue<T: RequestType>(
        _ request: T, _ placement: RequestPlan.CachePlacement, _ cached: CachedValue<T.Response>, now: CacheInstant
    ) -> Bool {
        guard case .success(let options) = resilience(for: request, placement: placement),
            options.eagerRefreshThreshold != nil,
            options.freshness(storedAt: cached.entry.storedAt, expiresAt: cached.entry.expiresAt, now: now)
                == .refreshEagerly
        else { return false }
        let key = CachedRequestStateManager.Key(scope: placement.scope, key: flightIdentity(request, placement))
        let gate = shared.eagerRefreshes
        guard gate.begin(key, entryStoredAt: cached.entry.storedAt) else { return false }
        backgroundRefreshes.start {
            let result = await self.fetch(
                request, placement, revalidating: cached, refreshingLateAfter: options.eagerRefreshThreshold)
            if case .success = result {
                gate.end(key, succeeded: true)
            } else {
                gate.end(key, succeeded: false)
            }
        }
        return true
    }
}
