import Testing

@testable import CacheCore

@Suite("Circuit breaker state machine")
struct CircuitBreakerStateMachineTests {
    private let start = CacheInstant(nanoseconds: 1_000_000_000)
    private let configuration = CircuitBreakerStateMachine.Configuration(
        failureThreshold: 3, breakDuration: .seconds(10))

    private func at(_ seconds: Int) -> CacheInstant { start.advanced(by: .seconds(seconds)) }

    /// A machine opened at `at(0)` by three failures.
    private func opened() -> CircuitBreakerStateMachine {
        var machine = CircuitBreakerStateMachine(configuration: configuration)
        for _ in 0..<3 { _ = machine.callFailed(isTrial: false, now: at(0)) }
        return machine
    }

    @Test("the threshold of consecutive failures opens it, reporting the opening once")
    func opensAtThreshold() {
        var machine = CircuitBreakerStateMachine(configuration: configuration)
        #expect(machine.callStarting(now: at(0)) == .proceed)
        #expect(machine.callFailed(isTrial: false, now: at(0)) == .none)
        #expect(machine.callFailed(isTrial: false, now: at(0)) == .none)
        #expect(machine.state == .closed(consecutiveFailures: 2))
        #expect(machine.callFailed(isTrial: false, now: at(1)) == .opened(consecutiveFailures: 3, until: at(11)))
        #expect(machine.state == .open(until: at(11)))
        // Late failures of calls started before the opening report nothing more.
        #expect(machine.callFailed(isTrial: false, now: at(1)) == .none)
        #expect(machine.state == .open(until: at(11)))
    }

    @Test("a success between failures starts the count again, so scattered failures never open it")
    func successResetsCount() {
        var machine = CircuitBreakerStateMachine(configuration: configuration)
        for second in 0..<10 {
            #expect(machine.callFailed(isTrial: false, now: at(second)) == .none)
            #expect(machine.callFailed(isTrial: false, now: at(second)) == .none)
            #expect(machine.callSucceeded(isTrial: false) == .none)
        }
        #expect(machine.state == .closed(consecutiveFailures: 0))
        #expect(machine.isClosed)
    }

    @Test("open: every call is skipped until the break has passed, late successes do not close it")
    func staysOpen() {
        var machine = opened()
        #expect(!machine.isClosed)
        for second in 0..<10 { #expect(machine.callStarting(now: at(second)) == .skip) }
        #expect(machine.callSucceeded(isTrial: false) == .none)
        #expect(machine.callStarting(now: at(10).advanced(by: .milliseconds(-1))) == .skip)
    }

    @Test("half-open: one trial only; its success closes the breaker")
    func trialSuccessCloses() {
        var machine = opened()
        #expect(machine.callStarting(now: at(10)) == .proceedAsTrial)
        #expect(machine.state == .halfOpen(trialStartedAt: at(10)))
        #expect(machine.callStarting(now: at(11)) == .skip)
        #expect(!machine.isClosed)
        // A call started before the opening answers now: only the trial decides.
        #expect(machine.callSucceeded(isTrial: false) == .none)
        #expect(machine.callFailed(isTrial: false, now: at(11)) == .none)
        #expect(machine.callSucceeded(isTrial: true) == .closed)
        #expect(machine.state == .closed(consecutiveFailures: 0))
        #expect(machine.callStarting(now: at(11)) == .proceed)
    }

    @Test("half-open: the trial's failure opens it again for another break")
    func trialFailureReopens() {
        var machine = opened()
        #expect(machine.callStarting(now: at(10)) == .proceedAsTrial)
        #expect(machine.callFailed(isTrial: true, now: at(12)) == .opened(consecutiveFailures: 1, until: at(22)))
        #expect(machine.callStarting(now: at(21)) == .skip)
        #expect(machine.callStarting(now: at(22)) == .proceedAsTrial)
    }

    @Test("a trial that never reports is replaced by another after a break, never blocking the store for good")
    func lostTrialReplaced() {
        var machine = opened()
        #expect(machine.callStarting(now: at(10)) == .proceedAsTrial)
        #expect(machine.callStarting(now: at(19)) == .skip)
        #expect(machine.callStarting(now: at(20)) == .proceedAsTrial)
        #expect(machine.state == .halfOpen(trialStartedAt: at(20)))
    }

    @Test("a threshold below one is one, a negative break is none")
    func clampedConfiguration() {
        let clamped = CircuitBreakerStateMachine.Configuration(failureThreshold: 0, breakDuration: .seconds(-1))
        #expect(clamped.failureThreshold == 1)
        #expect(clamped.breakDuration == .zero)
        var machine = CircuitBreakerStateMachine(configuration: clamped)
        #expect(machine.callFailed(isTrial: false, now: at(0)) == .opened(consecutiveFailures: 1, until: at(0)))
        #expect(machine.callStarting(now: at(0)) == .proceedAsTrial)
    }
}
