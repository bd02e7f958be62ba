/// In-flight de-duplication (the seed's `CachedRequestStateManager`): concurrent identical requests (same scope and
/// key) make one upstream call, and every waiter gets the leader's result.
///
/// The mechanism is CacheCore's `InFlightCalls` (shared with the GraphQL client); this type keeps the seed's name
/// and lets requests of different response types share one manager: a waiter whose type differs from the
/// leader's fetches on its own.
public final class CachedRequestStateManager: Sendable {
    /// Identifies identical requests.
    public struct Key: Hashable, Sendable {
        public var scope: CacheScope
        public var key: String

        public init(scope: CacheScope, key: String) {
            self.scope = scope
            self.key = key
        }
    }

    /// How quickly waiters were handed the leader's answer.
    public typealias ReleaseStatistics = InFlightReleaseStatistics

    @usableFromInline let calls = InFlightCalls<Key, any Sendable>()

    public init() {}

    /// The number of distinct requests in flight.
    public var inFlightCount: Int { calls.count }

    /// How many callers are waiting for the request with this key (zero when none is in flight).
    public func waiterCount(for key: Key) -> Int { calls.waiterCount(for: key) }

    /// Release timings of calls joined by waiters.
    public var releaseStatistics: ReleaseStatistics { calls.releaseStatistics }

    /// Whether a request may be answered by a call already in flight (see `InFlightCalls.Joining`).
    public typealias Joining = InFlightCalls<Key, any Sendable>.Joining

    /// Runs `operation` once for all concurrent callers with the same key that may share its answer: a caller
    /// joins a call only if no clear of the scope happened since the call started and it is not network-only.
    ///
    /// - Parameters:
    ///   - key: the request's scope and key.
    ///   - generation: the scope's generation taken just before; `operation` must store under it.
    ///   - joining: `.newCallOnly` for network-only reads, which never take an answer that left before they asked.
    ///   - operation: the upstream call and store, run once for all who share it.
    /// - Returns: the operation's value, whether this caller joined another's call, or nil when this caller's
    ///   task was cancelled while waiting (the call itself goes on for the others).
    public func run<Value: Sendable>(
        _ key: Key,
        generation: CacheGeneration,
        joining: Joining = .anyCurrentCall,
        operation: @escaping @Sendable () async -> Value
    ) async -> (value: Value, joined: Bool)? {
        let outcome = await run(
            key, generation: generation, joining: joining,
            leading: { () async -> InFlightLeaderStep<Value, Void> in .continuing(()) },
            operation: { _ in await operation() })
        guard case .answered(let answer) = outcome else { return nil }
        return answer
    }

    /// ``run(_:generation:joining:operation:)`` with the caller waiting at most `timeout` (nil: as long as it
    /// takes): past it the call goes on in its own task, lands for the callers still waiting and stores its answer;
    /// one call per key however many callers time out.
    public func run<Value: Sendable>(
        _ key: Key,
        generation: CacheGeneration,
        joining: Joining = .anyCurrentCall,
        waitingAtMost timeout: Duration?,
        operation: @escaping @Sendable () async -> Value
    ) async -> CacheRaceOutcome<(value: Value, joined: Bool)> {
        await run(
            key, generation: generation, joining: joining, waitingAtMost: timeout,
            leading: { () async -> InFlightLeaderStep<Value, Void> in .continuing(()) },
            operation: { _ in await operation() })
    }

    /// ``run(_:generation:joining:waitingAtMost:operation:)`` with a first step the leader takes in its own task (see
    /// `InFlightCalls.run(_:generation:joining:waitingAtMost:leading:work:)`): a second-level hit answers the call
    /// there, with no task started and no hand-off; otherwise `operation` goes on from what it carries.
    @inlinable
    public func run<Value: Sendable, Carry: Sendable>(
        _ key: Key,
        generation: CacheGeneration,
        joining: Joining = .anyCurrentCall,
        waitingAtMost timeout: Duration? = nil,
        leading first: () async -> InFlightLeaderStep<Value, Carry>,
        operation: @escaping @Sendable (Carry) async -> Value
    ) async -> CacheRaceOutcome<(value: Value, joined: Bool)> {
        let outcome = await calls.run(
            key, generation: generation, joining: joining, waitingAtMost: timeout,
            leading: { () async -> InFlightLeaderStep<any Sendable, Carry> in
                switch await first() {
                case .answered(let value): return .answered(value)
                case .continuing(let carry): return .continuing(carry)
                }
            },
            work: { carry in await operation(carry) })
        let answer: (value: any Sendable, joined: Bool)
        switch outcome {
        case .answered(let given): answer = given
        case .timedOut: return .timedOut
        case .cancelled: return .cancelled
        }
        if let typed = answer.value as? Value { return .answered((typed, answer.joined)) }
        // Same key, different response type: not shareable; fetch on our own.
        switch await first() {
        case .answered(let value): return .answered((value, false))
        case .continuing(let carry): return .answered((await operation(carry), false))
        }
    }

    /// Makes the scope's calls in flight unjoinable (they go on for their callers): after a successful mutation,
    /// no later read of the session is answered by a call that left before it.
    public func retireCalls(in scope: CacheScope) {
        calls.retire { $0.scope == scope }
    }
}
