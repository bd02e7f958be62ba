import CacheCore

extension GraphQLClient {
    /// The options a cache-first call of `request` runs under: the call's over the operation's over the client's,
    /// option by option; nil when none is on (the plain path, which pays nothing for resilience).
    func resilience(for request: PreparedRequest, call: CacheResilience?) -> CacheResilience? {
        var resilience = configuration.resilience
        if shared.hasOperationResilience.load(ordering: .relaxed),
            let operation = shared.rules.withLock({ $0.config.operationResilience[request.document.keyName] })
        {
            resilience = operation.merged(over: resilience)
        }
        if let call {
            resilience = call.merged(over: resilience)
        }
        return resilience.isEnabled ? resilience : nil
    }

    /// Refuses a call's invalid options, and notes its fail-safe window so purges keep records that long.
    func checkCallResilience(_ resilience: CacheResilience?) throws(GraphQLCacheError) {
        guard let resilience else { return }
        do {
            _ = try resilience.validated()
        } catch {
            throw .invalidResilience(error)
        }
        if let window = resilience.failSafeMaxDuration {
            shared.noteCallFailSafeWindow(window)
        }
    }

    /// Cache first, with the resilience options on: a fresh answer at once (and one background refresh when it is
    /// late in its life); else the upstream, and the answer kept past its freshness (within the fail-safe window)
    /// when the upstream fails, is throttled after failing, is slower than the soft timeout, or reaches the hard
    /// timeout. With nothing to serve, the hard timeout ends the call with `timedOut`.
    func resilientCacheFirst<Value>(
        _ request: PreparedRequest,
        plan: CachePlan,
        resilience: CacheResilience,
        reader: ResultReader<Value>
    ) async -> Result<GraphQLResult<Value>, GraphQLCacheError> {
        let key = flightKey(request, storing: true)
        var stale: JudgedRead<Value>?
        switch readJudged(request, plan: plan, reader: reader, eagerShare: resilience.eagerRefreshThreshold) {
        case .success(let read)? where read.staleness == nil:
            var result = read.result
            if read.isLate {
                result.staleReason = .eagerRefresh
                refreshEagerly(request, key: key, entryStoredAt: read.writtenAt, resilience: resilience)
            }
            reportServed(.l1, .hit, reason: result.staleReason)
            return .success(result)
        case .success(let read)?:
            if let window = resilience.failSafeMaxDuration, let staleness = read.staleness, staleness <= window {
                stale = read
            }
        case .failure(let error)? where error.code != .decodingFailed:
            return .failure(error)
        case .failure?, nil:
            break
        }
        if let stale, shared.throttle.isThrottled(key, at: stale.readAt) {
            return served(stale, .failSafe)
        }
        let timeout = stale != nil ? (resilience.softTimeout ?? resilience.hardTimeout) : resilience.hardTimeout
        let throttle = resilience.failSafeMaxDuration != nil ? resilience.failSafeThrottleDuration : nil
        let hasStale = stale != nil
        var race = await networkAnswer(
            request, storing: true, joining: .anyCurrentCall, readingSecondLevel: true, failSafeThrottle: throttle,
            acceptsThrottled: hasStale, waitingAtMost: timeout)
        if case .answered(.failure(let error)) = race, error.code == .cancelled { race = .cancelled }
        switch race {
        case .answered(.success(let answer)):
            return result(from: answer, request: request, reader: reader)
        case .answered(.failure(let error)):
            if let stale, error.allowsFailSafe || error.code == .failSafeThrottled {
                return served(stale, .failSafe)
            }
            return .failure(error)
        case .timedOut:
            if let stale {
                return served(stale, resilience.softTimeout != nil ? .softTimeout : .failSafe)
            }
            return .failure(.timedOutError(after: timeout ?? .zero))
        case .cancelled:
            return .failure(.cancelledError())
        }
    }

    /// A stale answer served for `reason`, reported as such.
    private func served<Value>(
        _ read: JudgedRead<Value>, _ reason: CacheStaleReason
    ) -> Result<GraphQLResult<Value>, GraphQLCacheError> {
        var result = read.result
        result.isStale = true
        result.staleReason = reason
        reportServed(.l1, .stale, reason: reason)
        return .success(result)
    }

    /// Starts the one background refresh of a query answered fresh but late in its life, unless one is running or
    /// was made since the answer was written. Cleared scopes and closed sessions refuse its answer as any other's.
    private func refreshEagerly(
        _ request: PreparedRequest, key: FlightKey, entryStoredAt: CacheInstant, resilience: CacheResilience
    ) {
        let gate = shared.eagerRefreshes
        guard gate.begin(key, entryStoredAt: entryStoredAt) else { return }
        let throttle = resilience.failSafeMaxDuration != nil ? resilience.failSafeThrottleDuration : nil
        backgroundTasks.start {
            // A throttled query is not asked again early: the hit was answered already.
            let outcome = await self.networkAnswer(
                request, storing: true, joining: .anyCurrentCall, failSafeThrottle: throttle, acceptsThrottled: true)
            let succeeded = if case .success = outcome { true } else { false }
            gate.end(key, succeeded: succeeded)
        }
    }

    /// After the upstream call of a query whose callers may be answered from fail-safe: a failure that allows
    /// fail-safe throttles it for `throttle`, before the call's callers are released, so callers arriving later find
    /// the throttle (and serve what they hold, or ask again themselves when they hold nothing); an answer lifts it.
    func updateThrottle(_ key: FlightKey, after outcome: NetworkOutcome, for throttle: Duration) {
        switch outcome {
        case .success:
            shared.throttle.lift(key)
        case .failure(let error) where error.allowsFailSafe:
            shared.throttle.throttle(key, for: throttle, now: store.clock.now())
        case .failure:
            break
        }
    }
}
