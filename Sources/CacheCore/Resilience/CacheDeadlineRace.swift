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
/// cache. The operation passed here must return promptly when its task is cancelled (``InFlightCalls/run(_:generation:joining:work:)``
/// returns nil).
public enum CacheDeadlineRace {
    /// Runs `operation`, giving up on it after `timeout` (measured on the continuous clock: it is real waiting,
    /// not cache time). A nil timeout waits as long as the operation takes.
    public static func race<Value: Sendable>(
        _ timeout: Duration?,
        _ operation: @escaping @Sendable () async -> Value?
    ) async -> CacheRaceOutcome<Value> {
        guard let timeout else {
            guard let value = await operation() else { return .cancelled }
            return .answered(value)
        }
        return await withTaskGroup(of: CacheRaceOutcome<Value>?.self) { group in
            group.addTask {
                guard let value = await operation() else { return Task.isCancelled ? nil : .cancelled }
                return .answered(value)
            }
            group.addTask {
                do {
                    try await Task.sleep(for: timeout)
                    return .timedOut
                } catch {
                    return nil
                }
            }
            var outcome: CacheRaceOutcome<Value> = .cancelled
            while let next = await group.next() {
                if let next {
                    outcome = next
                    break
                }
            }
            group.cancelAll()
            return outcome
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
        await CacheDeadlineRace.race(timeout) {
            await self.run(key, generation: generation, joining: joining, work: work)
        }
    }
}
