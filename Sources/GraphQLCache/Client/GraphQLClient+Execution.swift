import CacheCore
import GraphQLLanguage

/// How one result type is read from the store and decoded from the network: typed operations decode into
/// their `Data`, untyped ones stay JSON.
struct ResultReader<Value: Sendable>: Sendable {
    /// Reads the cached answer into its last argument (set on a hit) and says what the read found.
    let cached:
        @Sendable (GraphQLClient, PreparedRequest, ReadFreshness?, inout Value?) throws(GraphQLCacheError) -> StoreRead
    let decode: @Sendable (GraphQLJSONObject, [CodingUserInfoKey: any Sendable]) throws(GraphQLCacheError) -> Value
}

/// How a cached answer is judged, apart from its value: kept free of the caller's type, so that a hit's path looks
/// up no generic type metadata for it (see ``StoreRead``).
struct CacheJudgement {
    /// How far past its freshness it is; nil when fresh.
    var staleness: Duration?
    /// Fresh, but past the eager-refresh share of its lifetime.
    var isLate: Bool
    /// When it was read, on the store's clock.
    var readAt: CacheInstant
    /// When the oldest field it reads was written (when it was read, if it reads none).
    var writtenAt: CacheInstant
    /// The time since the oldest field it reads was written.
    var age: Duration
}

/// A cached answer and what the resilience options need to know of it.
struct JudgedRead<Value: Sendable>: Sendable {
    var result: GraphQLResult<Value>
    /// How far past its freshness it is; nil when fresh.
    var staleness: Duration?
    /// Fresh, but past the eager-refresh share of its lifetime.
    var isLate: Bool
    /// When it was read, on the store's clock.
    var readAt: CacheInstant
    /// When the oldest field it reads was written (when it was read, if it reads none).
    var writtenAt: CacheInstant
}

/// What the caching policy hook decided for one call.
struct CachePlan {
    /// The query-level timeout: the call's, or what the hook replaced it with.
    let timeout: QueryCacheTimeout
    /// Whether the call may read and store at all.
    let usesCache: Bool
}

extension GraphQLClient {
    func typedReader<Value: Decodable & Sendable>(_ type: Value.Type) -> ResultReader<Value> {
        ResultReader(
            cached: { client, request, freshness, value throws(GraphQLCacheError) in
                try client.store.read(
                    Value.self,
                    operation: request.document.operation,
                    variables: request.variables,
                    in: client.scope,
                    userInfo: client.configuration.decodingUserInfo,
                    freshness: freshness,
                    planAnchor: request.document,
                    reportsTouched: false,
                    into: &value
                )
            },
            decode: { data, userInfo throws(GraphQLCacheError) in
                try GraphQLJSON.object(data).decode(Value.self, userInfo: userInfo)
            }
        )
    }

    var jsonReader: ResultReader<GraphQLJSONObject> {
        ResultReader(
            cached: { client, request, freshness, data throws(GraphQLCacheError) in
                try client.store.read(
                    request.document.operation,
                    variables: request.variables,
                    in: client.scope,
                    freshness: freshness,
                    planAnchor: request.document,
                    reportsTouched: false,
                    into: &data
                )
            },
            decode: { data, _ in data }
        )
    }

    // MARK: - Policies

    /// Answers a query under a policy; `resilience` is the call's own options (see
    /// ``GraphQLClient/fetch(query:cachePolicy:cacheTimeout:resilience:)``).
    func execute<Value>(
        _ request: PreparedRequest,
        policy: GraphQLCachePolicy,
        reader: ResultReader<Value>,
        resilience callResilience: CacheResilience? = nil
    ) async -> Result<GraphQLResult<Value>, GraphQLCacheError> {
        if isClosed {
            return .failure(.closedError())
        }
        let plan = plan(for: request)
        switch policy {
        case .returnCacheDataElseFetch:
            var value: Value?
            let start = startCacheFirst(request, plan: plan, resilience: callResilience, into: &value) {
                (freshness, value) throws(GraphQLCacheError) in
                try reader.cached(self, request, freshness, &value)
            }
            switch start {
            case .answered(let judged):
                if let value { return .success(cachedResult(value, judged, request)) }
                return .failure(.answerWithoutValue())
            case .failed(let error):
                return .failure(error)
            case .resilient(let resilience):
                return await resilientCacheFirst(request, plan: plan, resilience: resilience, reader: reader)
            case .network:
                return await cacheFirstFromNetwork(request, usesCache: plan.usesCache, reader: reader)
            }
        case .fetchIgnoringCacheData:
            return await fromNetwork(request, storing: plan.usesCache, joining: .newCallOnly, reader: reader)
        case .returnCacheDataAndFetch:
            if plan.usesCache {
                var value: Value?
                switch readCache(request, plan: plan, reader: reader, into: &value) {
                case .success(let judged)?:
                    if let value {
                        reportServed(.l1, judged.staleness != nil ? .stale : .hit)
                        backgroundTasks.start {
                            _ = await self.networkAnswer(request, storing: true, joining: .anyCurrentCall)
                        }
                        return .success(cachedResult(value, judged, request))
                    }
                case .failure(let error)? where error.code != .decodingFailed:
                    return .failure(error)
                default:
                    break
                }
            }
            return await fromNetwork(request, storing: plan.usesCache, joining: .anyCurrentCall, reader: reader)
        case .returnCacheDataDontFetch:
            var value: Value?
            switch plan.usesCache ? readCache(request, plan: plan, reader: reader, into: &value) : nil {
            case .success(let judged)?:
                if let value {
                    reportServed(.l1, judged.staleness != nil ? .stale : .hit)
                    return .success(cachedResult(value, judged, request))
                }
            case .failure(let error)?:
                return .failure(error)
            case nil:
                break
            }
            return .failure(
                GraphQLCacheError(
                    code: .cacheMiss,
                    message: "\"\(request.document.keyName)\" is not cached and the policy does not fetch."
                )
            )
        case .fetchIgnoringCacheCompletely:
            return await fromNetwork(request, storing: false, joining: .newCallOnly, reader: reader)
        }
    }

    /// The answers of a query as a sequence: the cached one first for `returnCacheDataAndFetch`.
    func stream<Value>(
        _ request: PreparedRequest,
        policy: GraphQLCachePolicy,
        reader: ResultReader<Value>
    ) -> AsyncStream<Result<GraphQLResult<Value>, GraphQLCacheError>> {
        let (stream, continuation) = AsyncStream.makeStream(of: Result<GraphQLResult<Value>, GraphQLCacheError>.self)
        let task = Task {
            defer { continuation.finish() }
            guard policy == .returnCacheDataAndFetch, !isClosed else {
                continuation.yield(await execute(request, policy: policy, reader: reader))
                return
            }
            let plan = plan(for: request)
            if plan.usesCache {
                var value: Value?
                switch readCache(request, plan: plan, reader: reader, into: &value) {
                case .failure(let error)? where error.code != .decodingFailed:
                    continuation.yield(.failure(error))
                    return
                case .success(let judged)?:
                    if let value {
                        reportServed(.l1, judged.staleness != nil ? .stale : .hit)
                        continuation.yield(.success(cachedResult(value, judged, request)))
                    }
                case .failure?, nil:
                    break
                }
            }
            continuation.yield(
                await fromNetwork(request, storing: plan.usesCache, joining: .anyCurrentCall, reader: reader)
            )
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// Sends a mutation (never de-duplicated) and stores its result.
    func performMutation<Value>(
        _ request: PreparedRequest,
        reader: ResultReader<Value>
    ) async -> Result<GraphQLResult<Value>, GraphQLCacheError> {
        if isClosed {
            return .failure(.closedError())
        }
        let outcome = await exchange(
            request, storing: true, generation: store.generation(of: scope), mutationsSeen: nil)
        if case .success = outcome {
            // Queries of this scope that left before the mutation may carry what it changed: later reads start their
            // own.
            let scope = scope
            flights.retire { $0.scope == scope }
        }
        return outcome.flatMap { result(from: $0, request: request, reader: reader) }
    }

    // MARK: - Steps

    /// The caching policy hook's say on this call.
    func plan(for request: PreparedRequest) -> CachePlan {
        guard let hook = configuration.cachingPolicy else {
            return CachePlan(timeout: request.requestedTimeout, usesCache: true)
        }
        guard let decided = hook(request.document.keyName, request.requestedTimeout) else {
            return CachePlan(timeout: .useDefault, usesCache: false)
        }
        return CachePlan(timeout: decided, usesCache: true)
    }

    /// The cached answer (into `value`), judged fresh or stale; `nil` on a miss.
    private func readCache<Value>(
        _ request: PreparedRequest,
        plan: CachePlan,
        reader: ResultReader<Value>,
        into value: inout Value?
    ) -> Result<CacheJudgement, GraphQLCacheError>? {
        judgeCache(request, plan: plan, reader: reader, eagerShare: nil, into: &value)
    }

    /// The cache-first policy up to its first await, shared by ``execute(_:policy:reader:resilience:)`` and the
    /// inlinable fetch's start: resilience options take their own path; otherwise the cache is read (through `read`)
    /// and a fresh answer is the result, a failure other than a decoding one ends the call, anything else goes to
    /// the network.
    func startCacheFirst<Value>(
        _ request: PreparedRequest,
        plan: CachePlan,
        resilience callResilience: CacheResilience?,
        into value: inout Value?,
        read: (ReadFreshness?, inout Value?) throws(GraphQLCacheError) -> StoreRead
    ) -> CacheFirstStart {
        guard plan.usesCache else { return .network }
        if let resilience = resilience(for: request, call: callResilience) { return .resilient(resilience) }
        switch judgeCache(request, plan: plan, eagerShare: nil, into: &value, read: read) {
        case .success(let judged)? where judged.staleness == nil:
            if value != nil {
                reportServed(.l1, .hit)
                return .answered(judged)
            }
        case .failure(let error)? where error.code != .decodingFailed:
            return .failed(error)
        default:
            break
        }
        value = nil
        return .network
    }

    /// Cache-first after its synchronous start found nothing to answer with: the network, joining a call in flight,
    /// and (when the plan uses the cache) the second level first and the answer stored.
    func cacheFirstFromNetwork<Value>(
        _ request: PreparedRequest, usesCache: Bool, reader: ResultReader<Value>
    ) async -> Result<GraphQLResult<Value>, GraphQLCacheError> {
        await fromNetwork(
            request, storing: usesCache, joining: .anyCurrentCall, reader: reader, readingSecondLevel: usesCache)
    }

    /// A cached answer as a result from the cache.
    private func cachedResult<Value>(
        _ value: Value, _ judged: CacheJudgement, _ request: PreparedRequest
    ) -> GraphQLResult<Value> {
        GraphQLResult(
            data: value, source: .cache, isStale: judged.staleness != nil, age: judged.age, queryKey: request.queryKey)
    }

    /// The cached answer with how far past its freshness it is and, when `eagerShare` is given, whether a fresh
    /// answer is past that share of its lifetime; `nil` on a miss.
    func readJudged<Value>(
        _ request: PreparedRequest,
        plan: CachePlan,
        reader: ResultReader<Value>,
        eagerShare: Double?
    ) -> Result<JudgedRead<Value>, GraphQLCacheError>? {
        var value: Value?
        switch judgeCache(request, plan: plan, reader: reader, eagerShare: eagerShare, into: &value) {
        case .success(let judged)?:
            guard let value else {
                return nil
            }
            return .success(
                JudgedRead(
                    result: cachedResult(value, judged, request), staleness: judged.staleness,
                    isLate: judged.isLate, readAt: judged.readAt, writtenAt: judged.writtenAt))
        case .failure(let error)?:
            return .failure(error)
        case nil:
            return nil
        }
    }

    /// Reads the cached answer into `value` and judges it (see ``readJudged(_:plan:reader:eagerShare:)``); `nil`
    /// on a miss.
    private func judgeCache<Value>(
        _ request: PreparedRequest,
        plan: CachePlan,
        reader: ResultReader<Value>,
        eagerShare: Double?,
        into value: inout Value?
    ) -> Result<CacheJudgement, GraphQLCacheError>? {
        judgeCache(request, plan: plan, eagerShare: eagerShare, into: &value) {
            (freshness, value) throws(GraphQLCacheError) in
            try reader.cached(self, request, freshness, &value)
        }
    }

    /// ``judgeCache(_:plan:reader:eagerShare:into:)`` reading through `read` (the store's read for the caller's
    /// type), for a caller that has no ``ResultReader`` to hand.
    func judgeCache<Value>(
        _ request: PreparedRequest,
        plan: CachePlan,
        eagerShare: Double?,
        into value: inout Value?,
        read: (ReadFreshness?, inout Value?) throws(GraphQLCacheError) -> StoreRead
    ) -> Result<CacheJudgement, GraphQLCacheError>? {
        let now = store.clock.now()
        let staleBefore = existingState?.timestamps.staleBefore(for: request.queryKey)
        let (freshness, lateness) = shared.rules.withLock { rules in
            (
                rules.freshness(queryTimeout: plan.timeout, now: now, staleBefore: staleBefore),
                eagerShare.flatMap { share in
                    rules.freshness(queryTimeout: plan.timeout, now: now, staleBefore: nil, lifetimeShare: share)
                }
            )
        }
        do {
            guard case .hit(let facts) = try read(freshness, &value) else {
                return nil
            }
            let staleness = freshness?.staleness(of: facts)
            let isLate = staleness == nil && lateness?.staleness(of: facts) != nil
            return .success(
                CacheJudgement(
                    staleness: staleness, isLate: isLate, readAt: now, writtenAt: facts.oldestWrite ?? now,
                    age: facts.oldestWrite.map { now.duration(since: $0) } ?? .zero))
        } catch {
            return .failure(error)
        }
    }

    func fromNetwork<Value>(
        _ request: PreparedRequest,
        storing: Bool,
        joining: InFlightCalls<FlightKey, NetworkOutcome>.Joining,
        reader: ResultReader<Value>,
        readingSecondLevel: Bool = false
    ) async -> Result<GraphQLResult<Value>, GraphQLCacheError> {
        let outcome = await networkAnswer(
            request, storing: storing, joining: joining, readingSecondLevel: readingSecondLevel)
        return outcome.flatMap { result(from: $0, request: request, reader: reader) }
    }

    func result<Value>(
        from answer: NetworkAnswer,
        request: PreparedRequest,
        reader: ResultReader<Value>
    ) -> Result<GraphQLResult<Value>, GraphQLCacheError> {
        do {
            let value = try reader.decode(answer.data, configuration.decodingUserInfo)
            return .success(
                GraphQLResult(
                    data: value,
                    source: answer.fromSecondLevel ? .cache : .network,
                    queryKey: request.queryKey,
                    errors: answer.errors,
                    extensions: answer.extensions,
                    wasStored: answer.wasStored
                )
            )
        } catch {
            return .failure(error)
        }
    }
}
