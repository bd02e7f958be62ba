import CacheCore

/// Fail-safe, soft and hard timeouts and eager refresh for the value door: the factory is the upstream.
extension ValueCore {
    /// The call's options over its domains' (the settings' domains naming one of its tags) over the hub's, checked.
    func resilience(for options: ValueCacheOptions, tags: Set<String>) throws(UnifiedCacheError) -> CacheResilience {
        var merged = options.resilience ?? .none
        if !tags.isEmpty, let settings, settings.setsDomainResilience.load(ordering: .relaxed) {
            let current = settings.current
            if let domain = current.resilience(forDomains: current.domainMap.domainNames(forValueTags: tags)) {
                merged = merged.merged(over: domain)
            }
        }
        merged = merged.merged(over: resilience)
        guard merged.isEnabled else { return merged }
        do {
            return try merged.validated()
        } catch {
            throw UnifiedCacheError(
                code: .invalidValueRequest, message: error.message, place: "options.resilience", underlying: error)
        }
    }

    /// A miss (or a stale value) with resilience options: the last value within its fail-safe window answers when
    /// the factory throws (then throttled), is slower than the soft timeout (the run completes in the background
    /// and stores its value) or exceeds the hard timeout; with nothing to serve, the hard timeout throws
    /// ``UnifiedCacheError/Code/timedOut``.
    func resilientMiss<Value: Codable & Sendable>(
        _ request: ValueRequest, flight: FlightKey, resilience: CacheResilience, session: CacheSession?,
        factory: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        let scope = flight.scope
        let now = store.clock.now()
        var usable: Value?
        if resilience.failSafeMaxDuration != nil, case .stale(let entry) = store.peek(request.key, in: scope),
            let value = entry.value as? Value,
            resilience.freshness(storedAt: entry.storedAt, expiresAt: entry.expiresAt, now: now) == .staleUsable
        {
            usable = value
        }
        let throttle = failSafeThrottle
        if let usable, throttle.isThrottled(flight, at: now) {
            staleAnswers.record(.failSafe)
            return usable
        }
        let hasStale = usable != nil
        let generation = store.generation(of: scope)
        let softTimeout = hasStale ? resilience.softTimeout : nil
        let outcome = await flights.run(
            flight, generation: generation, waitingAtMost: softTimeout ?? resilience.hardTimeout,
            leading: { () async -> InFlightLeaderStep<FlightResult, SecondLevelGeneration?> in
                if hasStale, throttle.isThrottled(flight, at: self.store.clock.now()) {
                    return .answered(.failure(Self.throttled))
                }
                let step = await self.secondLevelStep(
                    Value.self, request, in: scope, session: session, generation: generation)
                if case .answered(.success) = step { throttle.lift(flight) }
                return step
            },
            work: { levelGeneration in
                let raced = await CacheDeadlineRace.race(resilience.hardTimeout) { () async -> FlightResult? in
                    await self.produce(
                        request, in: scope, session: session, generation: generation,
                        levelGeneration: levelGeneration, factory: factory)
                }
                let result: FlightResult
                switch raced {
                case .answered(let answer): result = answer
                case .timedOut: result = .failure(Self.timedOut(resilience.hardTimeout))
                case .cancelled: result = .failure(CancellationError())
                }
                switch result {
                case .success: throttle.lift(flight)
                case .failure:
                    if hasStale {
                        throttle.throttle(
                            flight, for: resilience.failSafeThrottleDuration, now: self.store.clock.now())
                    }
                }
                return result
            })
        switch outcome {
        case .answered(let answer):
            if case .failure = answer.value, let usable {
                staleAnswers.record(.failSafe)
                return usable
            }
            guard let value = try answer.value.get() as? Value else { throw CancellationError() }
            return value
        case .timedOut:
            if let usable {
                staleAnswers.record(softTimeout != nil ? .softTimeout : .failSafe)
                return usable
            }
            throw Self.timedOut(resilience.hardTimeout)
        case .cancelled:
            throw CancellationError()
        }
    }

    /// The lowest eager-refresh threshold that could apply to a call (its own, its domains', the hub's), or nil: a
    /// hit younger than this share of its lifetime is answered without working out, merging and validating the
    /// options in force.
    @inlinable
    func eagerRefreshFloor(_ options: ValueCacheOptions, tags: Set<String>) -> Double? {
        var floor = eagerRefreshThreshold
        if let own = options.resilience?.eagerRefreshThreshold { floor = Swift.min(floor ?? own, own) }
        if !tags.isEmpty, let settings, let lowest = settings.lowestEagerRefreshThreshold {
            floor = Swift.min(floor ?? lowest, lowest)
        }
        return floor
    }

    /// On a fresh hit: when the value is past its eager-refresh threshold, runs the factory once in the background
    /// (one run per key, scope and type across concurrent hits); its value is stored as a miss's would be.
    @usableFromInline
    func refreshEagerlyIfDue<Value: Codable & Sendable>(
        _ entry: CacheEntry, as type: Value.Type, forKey key: String, tags: Set<String>, options: ValueCacheOptions,
        in scope: CacheScope, session: CacheSession?, now: CacheInstant,
        factory: @escaping @Sendable () async throws -> Value
    ) {
        guard let resilience = try? resilience(for: options, tags: tags), resilience.eagerRefreshThreshold != nil,
            resilience.freshness(storedAt: entry.storedAt, expiresAt: entry.expiresAt, now: now)
                == .refreshEagerly,
            let request = try? ValueRequest(key: key, tags: tags, options: options)
        else { return }
        let flight = FlightKey(scope: scope, key: key, type: ObjectIdentifier(Value.self))
        let gate = eagerRefreshes
        guard gate.begin(flight, entryStoredAt: entry.storedAt) else { return }
        staleAnswers.record(.eagerRefresh)
        backgroundRefreshes.start {
            let generation = self.store.generation(of: scope)
            let answer = await self.flights.run(flight, generation: generation) {
                await self.produce(request, in: scope, session: session, generation: generation, factory: factory)
            }
            if case .success? = answer?.value {
                gate.end(flight, succeeded: true)
            } else {
                gate.end(flight, succeeded: false)
            }
        }
    }

    static func timedOut(_ hardTimeout: Duration?) -> UnifiedCacheError {
        UnifiedCacheError(
            code: .timedOut,
            message: "The value's factory did not answer within the hard timeout (\(hardTimeout ?? .zero)).",
            place: "options.resilience.hardTimeout")
    }

    /// What a run that found its key throttled answers its callers with (they serve the stale value).
    static let throttled = UnifiedCacheError(
        code: .timedOut, message: "The factory failed moments ago; its fail-safe throttle is on.")
}
