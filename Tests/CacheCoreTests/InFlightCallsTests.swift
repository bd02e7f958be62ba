import CacheCore
import Synchronization
import Testing

@Suite("In-flight calls: who may join whom")
struct InFlightCallsTests {
    /// Upstream calls that stay open until the test releases them, numbered in start order.
    final class Upstream: Sendable {
        private let state = Mutex<(started: Int, waiting: [CheckedContinuation<Void, Never>])>((0, []))

        var started: Int { state.withLock { $0.started } }

        /// A call: returns how many calls had started when it was released.
        func call() async -> Int {
            await withCheckedContinuation { continuation in
                state.withLock { state in
                    state.started += 1
                    state.waiting.append(continuation)
                }
            }
            return state.withLock { $0.started }
        }

        func releaseAll() {
            let waiting = state.withLock { state in
                defer { state.waiting.removeAll() }
                return state.waiting
            }
            for continuation in waiting {
                continuation.resume()
            }
        }
    }

    /// Yields until `condition` holds (the calls under test are in this process: no wall-clock window).
    static func waitUntil(_ condition: () -> Bool) async {
        while !condition() {
            await Task.yield()
        }
    }

    private func waitUntil(_ condition: () -> Bool) async {
        await Self.waitUntil(condition)
    }

    @Test("callers of the same generation share one call")
    func sameGenerationJoins() async throws {
        let store = try makeStore()
        let calls = InFlightCalls<String, Int>()
        let upstream = Upstream()
        let generation = store.generation(of: alice)
        let first = Task { await calls.run("k", generation: generation) { await upstream.call() } }
        await waitUntil { upstream.started == 1 }
        let second = Task { await calls.run("k", generation: store.generation(of: alice)) { await upstream.call() } }
        await waitUntil { calls.waiterCount(for: "k") == 2 }
        upstream.releaseAll()

        #expect(await first.value?.joined == false)
        #expect(await second.value?.joined == true)
        #expect(upstream.started == 1)
    }

    @Test("a caller whose generation is newer (a clear in between) starts its own call and takes the key over")
    func newerGenerationLeads() async throws {
        let store = try makeStore()
        store.put("v", "k", in: alice)
        let calls = InFlightCalls<String, Int>()
        let upstream = Upstream()
        let beforeClear = store.generation(of: alice)
        let older = Task { await calls.run("k", generation: beforeClear) { await upstream.call() } }
        await waitUntil { upstream.started == 1 }

        store.clear(domain: "balances", in: alice)
        let newer = Task { await calls.run("k", generation: store.generation(of: alice)) { await upstream.call() } }
        await waitUntil { upstream.started == 2 }
        // A caller that took its generation before the clear may take the newer call's answer.
        let late = Task { await calls.run("k", generation: beforeClear) { await upstream.call() } }
        await waitUntil { calls.waiterCount(for: "k") == 2 }
        upstream.releaseAll()

        #expect(await older.value?.joined == false)
        #expect(await newer.value?.joined == false)
        #expect(await late.value?.joined == true)
        #expect(upstream.started == 2)
        #expect(calls.count == 0)
    }

    @Test("a network-only caller never joins; later callers join its call")
    func newCallOnly() async throws {
        let store = try makeStore()
        let calls = InFlightCalls<String, Int>()
        let upstream = Upstream()
        let generation = store.generation(of: alice)
        let older = Task { await calls.run("k", generation: generation) { await upstream.call() } }
        await waitUntil { upstream.started == 1 }
        let refresh = Task {
            await calls.run("k", generation: generation, joining: .newCallOnly) { await upstream.call() }
        }
        await waitUntil { upstream.started == 2 }
        let follower = Task { await calls.run("k", generation: generation) { await upstream.call() } }
        await waitUntil { calls.waiterCount(for: "k") == 2 }
        upstream.releaseAll()

        #expect(await older.value?.joined == false)
        #expect(await refresh.value?.joined == false)
        #expect(await follower.value?.joined == true)
    }

    @Test("retired calls go on for their callers, but nobody joins them any more")
    func retire() async throws {
        let store = try makeStore()
        let calls = InFlightCalls<String, Int>()
        let upstream = Upstream()
        let generation = store.generation(of: alice)
        let first = Task { await calls.run("a", generation: generation) { await upstream.call() } }
        let other = Task { await calls.run("b", generation: generation) { await upstream.call() } }
        await waitUntil { upstream.started == 2 }

        calls.retire { $0 == "a" }
        #expect(calls.count == 1)
        let second = Task { await calls.run("a", generation: generation) { await upstream.call() } }
        await waitUntil { upstream.started == 3 }
        upstream.releaseAll()

        #expect(await first.value?.joined == false)
        #expect(await second.value?.joined == false)
        #expect(await other.value?.joined == false)
        #expect(calls.count == 0)
    }
}
