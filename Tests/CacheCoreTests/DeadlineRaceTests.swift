import CacheCore
import Synchronization
import Testing

@Suite("Resilience: waiting at most a timeout while the call goes on")
struct DeadlineRaceTests {
    /// An upstream call that stays open until the test releases it.
    final class Gate: Sendable {
        private let state = Mutex<(started: Int, released: Bool, waiting: [CheckedContinuation<Void, Never>])>(
            (0, false, []))

        var started: Int { state.withLock { $0.started } }

        func call() async -> Int {
            await withCheckedContinuation { continuation in
                let resumeNow = state.withLock { state -> Bool in
                    state.started += 1
                    if state.released { return true }
                    state.waiting.append(continuation)
                    return false
                }
                if resumeNow { continuation.resume() }
            }
            return 42
        }

        func release() {
            let waiting = state.withLock { state in
                state.released = true
                defer { state.waiting.removeAll() }
                return state.waiting
            }
            for continuation in waiting { continuation.resume() }
        }
    }

    /// Counts how many times a call's work finished.
    final class Landings: Sendable {
        private let state = Mutex(0)
        var total: Int { state.withLock { $0 } }
        func count() { state.withLock { $0 += 1 } }
    }

    private func eventually(_ condition: () -> Bool) async {
        while !condition() { await Task.yield() }
    }

    @Test("An answer before the timeout is returned")
    func answersInTime() async {
        let outcome = await CacheDeadlineRace.race(.seconds(600)) { 7 }
        guard case .answered(let value) = outcome else {
            Issue.record("expected an answer, got \(outcome)")
            return
        }
        #expect(value == 7)
    }

    @Test("A call that has not answered by the timeout times out, and without a timeout it is awaited")
    func timesOut() async {
        let gate = Gate()
        let outcome = await CacheDeadlineRace.race(.milliseconds(5)) { await gate.call() }
        guard case .timedOut = outcome else {
            Issue.record("expected a timeout, got \(outcome)")
            return
        }
        gate.release()
        let awaited = await CacheDeadlineRace.race(nil) { await gate.call() }
        guard case .answered(42) = awaited else {
            Issue.record("expected the value, got \(awaited)")
            return
        }
    }

    @Test("Callers that time out leave one shared call running, and its answer lands for a later caller")
    func timedOutCallGoesOn() async throws {
        let generation = try makeStore().generation(of: alice)
        let gate = Gate()
        let calls = InFlightCalls<String, Int>()
        let landed = Landings()
        let work: @Sendable () async -> Int = {
            let value = await gate.call()
            landed.count()
            return value
        }
        for _ in 0..<20 {
            let outcome = await calls.run("k", generation: generation, waitingAtMost: .milliseconds(1), work: work)
            guard case .timedOut = outcome else {
                Issue.record("expected a timeout, got \(outcome)")
                return
            }
        }
        await eventually { gate.started == 1 }
        #expect(calls.count == 1)
        // A patient caller joins the same call; releasing it answers the caller and lands the work once.
        async let patient = calls.run("k", generation: generation, waitingAtMost: nil, work: work)
        await eventually { calls.waiterCount(for: "k") == 1 }
        gate.release()
        guard case .answered(let answer) = await patient else {
            Issue.record("the patient caller had no answer")
            return
        }
        #expect(answer.value == 42 && answer.joined)
        #expect(gate.started == 1)
        #expect(landed.total == 1)
    }

    @Test("A cancelled caller gets no answer and does not cancel the call others wait on")
    func cancellingOneCallerLeavesTheCall() async throws {
        let generation = try makeStore().generation(of: alice)
        let gate = Gate()
        let calls = InFlightCalls<String, Int>()
        let impatient = Task {
            await calls.run("k", generation: generation, waitingAtMost: .seconds(600)) { await gate.call() }
        }
        await eventually { gate.started == 1 }
        async let other = calls.run("k", generation: generation, waitingAtMost: .seconds(600)) {
            await gate.call()
        }
        await eventually { calls.waiterCount(for: "k") == 2 }
        impatient.cancel()
        guard case .cancelled = await impatient.value else {
            Issue.record("a cancelled caller must not get an answer")
            return
        }
        gate.release()
        guard case .answered(let answer) = await other else {
            Issue.record("the other caller lost its answer")
            return
        }
        #expect(answer.value == 42)
        #expect(gate.started == 1)
    }
}
