import CacheCore
import Synchronization

/// The second level's circuit breaker as the front runs it: the pure ``CircuitBreakerStateMachine`` under a lock, on
/// the hub's clock, with its counters and its once-per-opening report (see
/// ``SecondLevelConfiguration/CircuitBreaker``). Without a configured breaker every call proceeds and nothing is
/// counted.
///
/// Cost of a call while closed: one uncontended lock.
final class SecondLevelCircuit: Sendable {
    /// What the breaker did since the hub started.
    struct Counters: Equatable {
        var openings = 0
        var skippedReads = 0
        var skippedWrites = 0
        var isOpen = false
    }

    /// Whether a read was let through, and as what; `nil` when it is skipped.
    struct Permit {
        let isTrial: Bool
    }

    private struct State {
        var machine: CircuitBreakerStateMachine?
        var counters = Counters()
    }

    private let state: Mutex<State>
    private let clock: any CacheClock
    private let observer: (@Sendable (SecondLevelEvent) -> Void)?

    init(
        configuration: SecondLevelConfiguration.CircuitBreaker?, clock: any CacheClock,
        observer: (@Sendable (SecondLevelEvent) -> Void)?
    ) {
        state = Mutex(State(machine: configuration.map { CircuitBreakerStateMachine(configuration: $0.stateMachine) }))
        self.clock = clock
        self.observer = observer
    }

    /// Whether a read may go to the store now; nil (counted as skipped) while the breaker is open.
    func permitRead() -> Permit? {
        let now = clock.now()
        return state.withLock { state -> Permit? in
            guard var machine = state.machine else { return Permit(isTrial: false) }
            defer { state.machine = machine }
            switch machine.callStarting(now: now) {
            case .proceed: return Permit(isTrial: false)
            case .proceedAsTrial: return Permit(isTrial: true)
            case .skip:
                state.counters.skippedReads += 1
                return nil
            }
        }
    }

    /// Whether a write may be queued now: only while the breaker is closed (a write reports no result, so it is
    /// never a trial). A skipped write is counted.
    func permitsWrite() -> Bool {
        state.withLock { state in
            guard let machine = state.machine, !machine.isClosed else { return true }
            state.counters.skippedWrites += 1
            return false
        }
    }

    /// What the read let through by `permit` found: an answer (hit or miss) or none (`failed`).
    func record(_ permit: Permit, failed: Bool) {
        let now = clock.now()
        let action = state.withLock { state -> CircuitBreakerStateMachine.ResultAction in
            guard var machine = state.machine else { return .none }
            let action =
                failed
                ? machine.callFailed(isTrial: permit.isTrial, now: now)
                : machine.callSucceeded(isTrial: permit.isTrial)
            state.machine = machine
            switch action {
            case .none: break
            case .opened:
                state.counters.openings += 1
                state.counters.isOpen = true
            case .closed:
                state.counters.isOpen = false
            }
            return action
        }
        switch action {
        case .none:
            break
        case .opened(let failures, let until):
            observer?(.circuitOpened(consecutiveFailures: failures, breakDuration: until.duration(since: now)))
        case .closed:
            observer?(.circuitClosed)
        }
    }

    var counters: Counters { state.withLock { $0.counters } }
}
