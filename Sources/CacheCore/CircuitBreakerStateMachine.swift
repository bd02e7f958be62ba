/// The decisions of a circuit breaker in front of a dependency that may stall or fail (a second level, an upstream),
/// as a pure value: it holds no lock, reads no clock and performs nothing. Each event is a method that is given the
/// time and returns what the owner must do, so every transition is tested without I/O and the owner keeps it under
/// its own lock.
///
/// - **Closed**: every call proceeds; ``Configuration/failureThreshold`` consecutive failures open it.
/// - **Open**: every call is skipped (it does not wait for a dependency known to be failing) until
///   ``Configuration/breakDuration`` has passed.
/// - **Half-open**: one call proceeds as a trial; the others are still skipped. Its success closes the breaker, its
///   failure opens it again for another ``Configuration/breakDuration``. A trial that never reports (its caller went
///   away) is replaced by another once a ``Configuration/breakDuration`` has passed.
///
/// Results of calls that started before the breaker opened are ignored while it is open or half-open: only the
/// trial decides.
public struct CircuitBreakerStateMachine: Sendable, Equatable {
    /// When the breaker opens and how long it stays open.
    public struct Configuration: Sendable, Hashable {
        /// Consecutive failures that open the breaker (at least 1).
        public var failureThreshold: Int
        /// How long calls are skipped once it opened, before one trial is let through.
        public var breakDuration: Duration

        public init(failureThreshold: Int, breakDuration: Duration) {
            self.failureThreshold = max(1, failureThreshold)
            self.breakDuration = max(.zero, breakDuration)
        }
    }

    /// Where the breaker stands.
    public enum State: Sendable, Equatable {
        case closed(consecutiveFailures: Int)
        case open(until: CacheInstant)
        case halfOpen(trialStartedAt: CacheInstant)
    }

    /// What to do with a call about to start.
    public enum CallAction: Sendable, Equatable {
        /// Make the call; report its result with `isTrial: false`.
        case proceed
        /// Make the call as the half-open trial; report its result with `isTrial: true`.
        case proceedAsTrial
        /// Do not make the call: answer as if the dependency were unavailable.
        case skip
    }

    /// What the owner must do after a result was reported.
    public enum ResultAction: Sendable, Equatable {
        /// Nothing.
        case none
        /// The breaker just opened (from closed, or again after a failed trial): report it once.
        case opened(consecutiveFailures: Int, until: CacheInstant)
        /// The trial succeeded and the breaker closed: report the recovery once.
        case closed
    }

    public let configuration: Configuration
    public private(set) var state: State = .closed(consecutiveFailures: 0)

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    /// Whether the breaker is closed: a call whose result is never reported (a queued write) is made only then.
    public var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }

    /// Decides whether a call starting at `now` is made.
    public mutating func callStarting(now: CacheInstant) -> CallAction {
        switch state {
        case .closed:
            return .proceed
        case .open(let until):
            guard now >= until else { return .skip }
            state = .halfOpen(trialStartedAt: now)
            return .proceedAsTrial
        case .halfOpen(let startedAt):
            guard now >= startedAt.advanced(by: configuration.breakDuration) else { return .skip }
            state = .halfOpen(trialStartedAt: now)  // the previous trial never reported
            return .proceedAsTrial
        }
    }

    /// A call answered.
    public mutating func callSucceeded(isTrial: Bool) -> ResultAction {
        switch state {
        case .closed:
            state = .closed(consecutiveFailures: 0)
            return .none
        case .halfOpen where isTrial:
            state = .closed(consecutiveFailures: 0)
            return .closed
        case .open, .halfOpen:
            return .none
        }
    }

    /// A call failed or passed its deadline at `now`.
    public mutating func callFailed(isTrial: Bool, now: CacheInstant) -> ResultAction {
        switch state {
        case .closed(let failures):
            let counted = failures + 1
            guard counted >= configuration.failureThreshold else {
                state = .closed(consecutiveFailures: counted)
                return .none
            }
            return open(now: now, failures: counted)
        case .halfOpen where isTrial:
            return open(now: now, failures: 1)
        case .open, .halfOpen:
            return .none
        }
    }

    private mutating func open(now: CacheInstant, failures: Int) -> ResultAction {
        let until = now.advanced(by: configuration.breakDuration)
        state = .open(until: until)
        return .opened(consecutiveFailures: failures, until: until)
    }
}
