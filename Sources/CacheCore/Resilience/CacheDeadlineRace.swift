import Synchronization

/// What came first: the awaited value or the deadline.
public enum CacheRaceOutcome<Value: Sendable>: Sendable {
    /// The operation answered in time.
    case answered(Value)
    /// The deadline passed first; the operation's own waiting was cancelled.
    case timedOut
    /// The caller's task was cancelled before either.
    case cancelled
}

/// Waits for an operation at most a given time: the soft and hard timeouts of every door.
///
/// Only the caller's *waiting* is bounded. Work that must outlive a timed-out caller (an upstream call others wait
/// on, or that will update the cache) must run in a task of its own, as ``InFlightCalls`` runs its calls: then a
/// timeout or one caller's cancellation leaves it running, and its result still lands for the others and in the
/// cache. The operation itself runs in a task of its own that is cancelled once the race is decided; the caller is
/// answered at the deadline even when the operation ignores cancellation.
public enum CacheDeadlineRace {
    /// Runs `operation`, giving up on it after `timeout` (measured on the continuous clock: it is real waiting,
    /// not cache time). A nil timeout waits as long as the operation takes. An operation answering nil counts as
    /// cancelled.
    public static func race<Value: Sendable>(
        _ timeout: Duration?,
        _ operation: @escaping @Sendable () async -> Value?
    ) async -> CacheRaceOutcome<Value> {
        guard let timeout else {
            guard let value = await operation() else { return .cancelled }
            return .answered(value)
        }
        let race = Race<Value>()
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<CacheRaceOutcome<Value>, Never>) in
                race.wait(continuation)
                let contender = Task {
                    guard let value = await operation() else {
                        race.finish(.cancelled)
                        return
                    }
                    race.finish(.answered(value))
                }
                let timer = Task {
                    do {
                        try await Task.sleep(for: timeout)
                        race.finish(.timedOut)
                    } catch {
                        // Cancelled: the race was decided by the other side.
                    }
                }
                race.hold(contender, timer)
            }
        } onCancel: {
            race.finish(.cancelled)
        }
    }

    /// The one decision of a race: the first `finish` resumes the caller and cancels both sides.
    private final class Race<Value: Sendable>: Sendable {
        private struct State {
            var continuation: CheckedContinuation<CacheRaceOutcome<Value>, Never>?
            var outcome: CacheRaceOutcome<Value>?
            var tasks: [Task<Void, Never>] = []
        }

        private let state = Mutex(State())

        func wait(_ continuation: CheckedContinuation<CacheRaceOutcome<Value>, Never>) {
            let decided = state.withLock { state -> CacheRaceOutcome<Value>? in
                if let outcome = state.outcome { return outcome }
                state.continuation = continuation
                return nil
            }
            if let decided { continuation.resume(returning: decided) }
        }

        func hold(_ contender: Task<Void, Never>, _ timer: Task<Void, Never>) {
            let decided = state.withLock { state -> Bool in
                if state.outcome != nil { return true }
                state.tasks = [contender, timer]
                return false
            }
            if decided {
                contender.cancel()
                timer.cancel()
            }
        }

        func finish(_ outcome: CacheRaceOutcome<Value>) {
            let (continuation, tasks) = state.withLock {
                state -> (CheckedContinuation<CacheRaceOutcome<Value>, Never>?, [Task<Void, Never>]) in
                guard state.outcome == nil else { return (nil, []) }
                state.outcome = outcome
                defer {
                    state.continuation = nil
                    state.tasks = []
                }
                return (state.continuation, state.tasks)
            }
            for task in tasks { task.cancel() }
            continuation?.resume(returning: outcome)
        }
    }
}

extension InFlightCalls {
    /// ``run(_:generation:joining:work:)``, with the caller waiting at most `timeout`: the call goes on in its own
    /// task past the timeout (and past this caller's cancellation), lands for the callers still waiting and does
    /// whatever `work` does with its answer (store it). One call per key however many callers time out, so a slow
    /// upstream is asked once, not once per impatient caller.
    ///
    /// - Returns: ``CacheRaceOutcome/answered(_:)`` with the value and whether this caller joined another's call;
    ///   ``CacheRaceOutcome/timedOut`` when `timeout` passed first; ``CacheRaceOutcome/cancelled`` when the
    ///   caller's task was cancelled.
    public func run(
        _ key: Key,
        generation: CacheGeneration,
        joining: Joining = .anyCurrentCall,
        waitingAtMost timeout: Duration?,
        work: @escaping @Sendable () async -> Value
    ) async -> CacheRaceOutcome<(value: Value, joined: Bool)> {
        await run(
            key, generation: generation, joining: joining, waitingAtMost: timeout,
            leading: { () async -> InFlightLeaderStep<Value, Void> in .continuing(()) }, work: { _ in await work() })
    }
}
