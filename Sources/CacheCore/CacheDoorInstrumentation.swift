/// The calls every front door makes to its ``CacheInstrumentation``, written once so that REST, GraphQL and any
/// later door report their upstream calls, second-level reads and answers alike.
///
/// Each takes the door's optional instrumentation and returns at once to the plain path when none is installed:
/// one check of an optional, nothing built. The doors say only what is theirs (the attributes of their upstream
/// call, their part); the sequence (start, make current, end with the status or the failure) is here.
public enum CacheDoorInstrumentation {
    /// Runs `call` (a request to the upstream) as `operation`: started with `attributes()`, current for the calling
    /// task while it runs (``CacheInstrumentation/withCurrent(_:_:)``), and ended with the response's `status` or
    /// the failure's code. Without an instrumentation, runs `call` and builds no attribute.
    @inlinable
    public static func upstreamCall<Response, Failure: Error>(
        _ instrumentation: (any CacheInstrumentation)?,
        _ operation: CacheOperation,
        attributes: () -> CacheOperationAttributes,
        status: (Response) -> Int,
        failure: (Failure) -> String,
        call: () async throws(Failure) -> Response
    ) async throws(Failure) -> Response {
        guard let instrumentation else { return try await call() }
        var attributes = attributes()
        let token = instrumentation.start(operation, attributes: attributes)
        let result: Result<Response, Failure> = await instrumentation.withCurrent(token) {
            do throws(Failure) {
                return .success(try await call())
            } catch {
                return .failure(error)
            }
        }
        switch result {
        case .success(let response): attributes.status = status(response)
        case .failure(let error): attributes.failure = failure(error)
        }
        instrumentation.end(token, attributes: attributes)
        return try result.get()
    }

    /// Runs `read` (a second-level read after a miss in memory) as a ``CacheOperation/secondLevelRead`` of `part`,
    /// with what the store says of itself (`backend`); an unavailable store is a miss failed as `unavailable`.
    @inlinable
    public static func secondLevelRead<Entry>(
        _ instrumentation: (any CacheInstrumentation)?,
        part: CacheHit.Part,
        backend: @autoclosure () -> CacheBackendDescription,
        _ read: () async -> SecondLevelEntryRead<Entry>
    ) async -> SecondLevelEntryRead<Entry> {
        guard let instrumentation else { return await read() }
        var attributes = CacheOperationAttributes(part: part.rawValue, tier: CacheTier.l2.rawValue)
        attributes.setBackend(backend())
        let token = instrumentation.start(.secondLevelRead, attributes: attributes)
        let found = await read()
        attributes.outcome = found.outcome.rawValue
        if case .unavailable = found { attributes.failure = "unavailable" }
        instrumentation.end(token, attributes: attributes)
        return found
    }

    /// A read answered from memory or the second level: counts the resilience option that chose the answer in
    /// `staleAnswers` (read only then), when one did, and tells the instrumentation in one call that allocates
    /// nothing. The hit path's only cost: both are taken as the door reads them (autoclosures, inlined), so the
    /// door's optional instrumentation is copied once, as a direct `instrumentation?.cacheDidServe(_:)` would.
    @inlinable
    public static func served(
        _ instrumentation: @autoclosure () -> (any CacheInstrumentation)?, part: CacheHit.Part, tier: CacheTier,
        outcome: CacheOutcome, reason: CacheStaleReason?, staleAnswers: @autoclosure () -> StaleAnswerCounts
    ) {
        if let reason { staleAnswers().record(reason) }
        instrumentation()?.cacheDidServe(CacheHit(part: part, tier: tier, outcome: outcome, staleReason: reason))
    }
}
