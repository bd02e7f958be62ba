import CacheCore
import GraphQLLanguage

/// How one result type is read from the store and decoded from the network: typed operations decode into
/// their `Data`, untyped ones stay JSON.
struct ResultReader<Value: Sendable>: Sendable {
    let cached:
        @Sendable (GraphQLClient, PreparedRequest, ReadFreshness?) throws(GraphQLCacheError) -> GraphQLReadResult<
            Value
        >
    let decode: @Sendable (GraphQLJSONObject, [CodingUserInfoKey: any Sendable]) throws(GraphQLCacheError) -> Value
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
            cached: { client, request, freshness throws(GraphQLCacheError) in
                try client.store.read(
                    Value.self,
                    operation: request.document.operation,
                    variables: request.variables,
                    in: client.scope,
                    userInfo: client.configuration.decodingUserInfo,
                    freshness: freshness,
                    planAnchor: request.document,
                    reportsTouched: false
                )
            },
            decode: { data, userInfo throws(GraphQLCacheError) in
                try GraphQLJSON.object(data).decode(Value.self, userInfo: userInfo)
            }
        )
    }

    var jsonReader: ResultReader<GraphQLJSONObject> {
        ResultReader(
            cached: { client, request, freshness throws(GraphQLCacheError) in
                try client.store.read(
                    request.document.operation,
                    variables: request.variables,
                    in: client.scope,
                    freshness: freshness,
                    planAnchor: request.document,
                    reportsTouched: false
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
            if plan.usesCache, let resilience = resilience(for: request, call: callResilience) {
                return await resilientCacheFirst(request, plan: plan, resilience: resilience, reader: reader)
            }
            if plan.usesCache, let cached = readCache(request, plan: plan, reader: reader) {
                switch cached {
                case .success(let result) where !result.isStale:
                    reportServed(.l1, .hit)
                    return cached
                case .failure(let error) where error.code != .decodingFailed:
                    return cached
                default:
                    break
                }
            }
            return await fromNetwork(
                request, storing: plan.usesCache, joining: .anyCurrentCall, reader: reader,
                readingSecondLevel: plan.usesCache)
        case .fetchIgnoringCacheData:
            return await fromNetwork(request, storing: plan.usesCache, joining: .newCallOnly, reader: reader)
        case .returnCacheDataAndFetch:
            if plan.usesCache, let cached = readCache(request, plan: plan, reader: reader) {
                switch cached {
                case .success(let result):
                    reportServed(.l1, result.isStale ? .stale : .hit)
                    backgroundTasks.start {
                        _ = await self.networkAnswer(request, storing: true, joining: .anyCurrentCall)
                    }
                    return cached
                case .failure(let error) where error.code != .decodingFailed:
                    return cached
                default:
                    break
                }
            }
            return await fromNetwork(request, storing: plan.usesCache, joining: .anyCurrentCall, reader: reader)
        case .returnCacheDataDontFetch:
            guard plan.usesCache, let cached = readCache(request, plan: plan, reader: reader) else {
                return .failure(
                    GraphQLCacheError(
                        code: .cacheMiss,
                        message: "\"\(request.document.keyName)\" is not cached and the policy does not fetch."
                    )
                )
            }
            if case .success(let result) = cached { reportServed(.l1, result.isStale ? .stale : .hit) }
            return cached
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
            if plan.usesCache, let cached = readCache(request, plan: plan, reader: reader) {
                if case .failure(let error) = cached, error.code != .decodingFailed {
                    continuation.yield(cached)
                    return
                }
                if case .success(let result) = cached {
                    reportServed(.l1, result.isStale ? .stale : .hit)
                    continuation.yield(cached)
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
    private func plan(for request: PreparedRequest) -> CachePlan {
        guard let hook = configuration.cachingPolicy else {
            return CachePlan(timeout: request.requestedTimeout, usesCache: true)
        }
        guard let decided = hook(request.document.keyName, request.requestedTimeout) else {
            return CachePlan(timeout: .useDefault, usesCache: false)
        }
        return CachePlan(timeout: decided, usesCache: true)
    }

    /// The cached answer, judged fresh or stale; `nil` on a miss.
    private func readCache<Value>(
        _ request: PreparedRequest,
        plan: CachePlan,
        reader: ResultReader<Value>
    ) -> Result<GraphQLResult<Value>, GraphQLCacheError>? {
        // A closure, not `\.result`: a key path into a generic type is instantiated on every call (demangling its
        // generic arguments), a fifth of a small hit.
        readJudged(request, plan: plan, reader: reader, eagerShare: nil)?.map { $0.result }
    }

    /// The cached answer with how far past its freshness it is and, when `eagerShare` is given, whether a fresh
    /// answer is past that share of its lifetime; `nil` on a miss.
    func readJudged<Value>(
        _ request: PreparedRequest,
        plan: CachePlan,
        reader: ResultReader<Value>,
        eagerShare: Double?
    ) -> Result<JudgedRead<Value>, GraphQLCacheError>? {
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
            guard case .hit(let hit) = try reader.cached(self, request, freshness) else {
                return nil
            }
            let staleness = freshness?.staleness(of: hit)
            let result = GraphQLResult(
                data: hit.data,
                source: .cache,
                isStale: staleness != nil,
                age: hit.oldestWrite.map { now.duration(since: $0) } ?? .zero,
                queryKey: request.queryKey
            )
            let isLate = staleness == nil && lateness?.staleness(of: hit) != nil
            return .success(
                JudgedRead(
                    result: result, staleness: staleness, isLate: isLate, readAt: now,
                    writtenAt: hit.oldestWrite ?? now))
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
