/// What the leader of a call found in its first step: the answer itself, or what the call needs to go on.
public enum InFlightLeaderStep<Value: Sendable, Carry: Sendable>: Sendable {
    /// The call's answer: every caller waiting for it gets it, and no task is started.
    case answered(Value)
    /// The call goes on, in a task of its own, from `Carry`.
    case continuing(Carry)
}

extension InFlightCalls {
    /// ``run(_:generation:joining:waitingAtMost:work:)`` with a first step the leader takes in its own task before
    /// the call goes on in a task of its own. A cheap look that answers most calls (a second-level read) then costs
    /// no task and no hand-off between threads; callers that join while it runs wait for its answer as for the call's.
    ///
    /// The first step is not raced against `timeout` and the leader's cancellation is seen once it is over: it must
    /// be bounded by a deadline of its own. What runs after it keeps every guarantee of the plain call (its own task,
    /// past the timeout and past this caller's cancellation).
    // Always inlined: a caller generic over `Carry` (REST's request manager) could not specialise a call, and
    // inlined, the key and value types it names specialise `enter` and `land` (about 13,000 instructions an L2 hit).
    @inlinable @inline(__always)
    public func run<Carry: Sendable>(
        _ key: Key,
        generation: CacheGeneration,
        joining: Joining = .anyCurrentCall,
        waitingAtMost timeout: Duration? = nil,
        leading first: () async -> InFlightLeaderStep<Value, Carry>,
        work: @escaping @Sendable (Carry) async -> Value
    ) async -> CacheRaceOutcome<(value: Value, joined: Bool)> {
        let (flight, isLeader) = enter(key, generation: generation, joining: joining)
        if isLeader {
            switch await first() {
            case .answered(let value):
                land(flight, key: key, value: value, leaderWaits: false)
                return .answered((value, false))
            case .continuing(let carry):
                Task {
                    let value = await work(carry)
                    self.land(flight, key: key, value: value, leaderWaits: true)
                }
            }
        }
        switch await CacheDeadlineRace.race(timeout, { await self.wait(on: flight) }) {
        case .answered(let value): return .answered((value, !isLeader))
        case .timedOut: return .timedOut
        case .cancelled: return .cancelled
        }
    }
}
