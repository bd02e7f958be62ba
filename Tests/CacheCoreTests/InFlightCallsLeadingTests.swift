import CacheCore
import Synchronization
import Testing

@Suite("In-flight calls: the leader's first step in its own task")
struct InFlightCallsLeadingTests {
    typealias Upstream = InFlightCallsTests.Upstream

    private func waitUntil(_ condition: () -> Bool) async {
        await InFlightCallsTests.waitUntil(condition)
    }

    @Test("a first step that answers gives its value to callers who joined while it ran, and starts no call")
    func answeringFirstStep() async throws {
        let store = try makeStore()
        let calls = InFlightCalls<String, Int>()
        let look = Upstream()
        let upstream = Upstream()
        let generation = store.generation(of: alice)
        let leader = Task {
            await calls.run(
                "k", generation: generation,
                leading: { () async -> InFlightLeaderStep<Int, Void> in
                    .answered(await look.call() * 10)
                }, work: { _ in await upstream.call() })
        }
        await waitUntil { look.started == 1 }
        let joiner = Task {
            await calls.run("k", generation: store.generation(of: alice)) { await upstream.call() }
        }
        await waitUntil { calls.waiterCount(for: "k") == 1 }
        look.releaseAll()

        guard case .answered(let led) = await leader.value else {
            Issue.record("the leader had no answer")
            return
        }
        #expect(led.value == 10 && !led.joined)
        #expect(await joiner.value?.value == 10)
        #expect(await joiner.value?.joined == true)
        #expect(upstream.started == 0, "a call was started although the first step answered")
        #expect(calls.count == 0, "the key was not released")
        #expect(calls.releaseStatistics.sharedFlights == 1 && calls.releaseStatistics.waitersReleased == 2)
    }

    @Test("a first step that goes on hands its carry to one call, which joiners share")
    func continuingFirstStep() async throws {
        let store = try makeStore()
        let calls = InFlightCalls<String, Int>()
        let upstream = Upstream()
        let generation = store.generation(of: alice)
        let leader = Task {
            await calls.run(
                "k", generation: generation, leading: { () async -> InFlightLeaderStep<Int, Int> in .continuing(7) },
                work: { carry in await upstream.call() + carry })
        }
        await waitUntil { upstream.started == 1 }
        let joiner = Task {
            await calls.run("k", generation: store.generation(of: alice)) { await upstream.call() }
        }
        await waitUntil { calls.waiterCount(for: "k") == 2 }
        upstream.releaseAll()

        guard case .answered(let led) = await leader.value else {
            Issue.record("the leader had no answer")
            return
        }
        #expect(led.value == 8 && !led.joined)
        #expect(await joiner.value?.value == 8)
        #expect(upstream.started == 1)
    }

    @Test("a caller that stops waiting past its timeout leaves the call going on for the others")
    func timeoutAfterTheFirstStep() async throws {
        let store = try makeStore()
        let calls = InFlightCalls<String, Int>()
        let upstream = Upstream()
        let generation = store.generation(of: alice)
        let impatient = await calls.run(
            "k", generation: generation, waitingAtMost: .milliseconds(1),
            leading: { () async -> InFlightLeaderStep<Int, Void> in .continuing(()) },
            work: { _ in await upstream.call() })
        guard case .timedOut = impatient else {
            Issue.record("expected a timeout, got \(impatient)")
            return
        }
        let joiner = Task { await calls.run("k", generation: store.generation(of: alice)) { await upstream.call() } }
        await waitUntil { calls.waiterCount(for: "k") == 1 && upstream.started == 1 }
        upstream.releaseAll()
        #expect(await joiner.value?.value == 1)
        #expect(await joiner.value?.joined == true)
        #expect(upstream.started == 1, "the timed-out call was not shared")
    }
}
