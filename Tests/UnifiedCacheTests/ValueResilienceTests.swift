import CacheCore
import FixtureSupport
import Foundation
import Testing

@testable import UnifiedCache

/// The value door's resilience: the factory is the upstream.
@Suite("Value door resilience: fail-safe, soft and hard timeouts and eager refresh of a factory")
struct ValueResilienceTests {
    struct FactoryDown: Error {}

    private let hour = CacheResilience(failSafeMaxDuration: .seconds(3_600), failSafeThrottleDuration: .seconds(30))

    private func options(_ resilience: CacheResilience?) -> ValueCacheOptions {
        ValueCacheOptions(duration: .seconds(30), resilience: resilience)
    }

    @Test("A throwing factory: the last value answers through its fail-safe window, then the factory's error")
    func failSafeWhenTheFactoryThrows() async throws {
        let harness = try await FacadeHarness("vr-failsafe", resilience: hour)
        // The shared scope: a session would end after an idle hour.
        let values = harness.hub.values
        let runs = CallCounter()
        #expect(try await values.value(forKey: "n", options: options(nil)) { runs.increment() } == 1)
        harness.clock.advance(by: .seconds(31))
        _ = await harness.hub.runMaintenance()
        let failing: @Sendable () async throws -> Int = {
            runs.increment()
            throw FactoryDown()
        }
        #expect(try await values.value(forKey: "n", options: options(nil), factory: failing) == 1)
        // Throttled: the failing factory is not run again within the period.
        #expect(try await values.value(forKey: "n", options: options(nil), factory: failing) == 1)
        #expect(runs.count == 2)
        #expect(harness.hub.metricsText().contains(#"ucache_stale_answers_total{part="values",reason="fail_safe"} 2"#))

        harness.clock.advance(by: .seconds(3_600))  // past the window
        _ = await harness.hub.runMaintenance()
        await #expect(throws: FactoryDown.self) {
            try await values.value(forKey: "n", options: options(nil), factory: failing)
        }
    }

    @Test("A slow factory: the last value at the soft timeout, and the value the factory returns is stored")
    func softTimeout() async throws {
        let harness = try await FacadeHarness("vr-soft")
        let values = harness.session(.alice).values
        let soft = options(CacheResilience(failSafeMaxDuration: .seconds(3_600), softTimeout: .milliseconds(50)))
        #expect(try await values.value(forKey: "n", options: soft) { 1 } == 1)
        harness.clock.advance(by: .seconds(31))
        let latch = Latch()
        #expect(
            try await values.value(forKey: "n", options: soft) {
                await latch.wait()
                return 2
            } == 1)
        latch.open()
        try await waitUntil {
            if case .fresh(let entry) = harness.hub.valueStore.peek("n", in: harness.session(.alice).scope) {
                return entry.value as? Int == 2
            }
            return false
        }
        #expect(try await values.value(forKey: "n", options: soft) { 3 } == 2)
        #expect(harness.hub.values.statistics().factoryRuns == 2)
    }

    @Test("Nothing to serve: the hard timeout throws the timeout error while the factory goes on")
    func hardTimeoutWithNothingToServe() async throws {
        let harness = try await FacadeHarness("vr-hard")
        let values = harness.session(.alice).values
        let latch = Latch()
        let error = await #expect(throws: UnifiedCacheError.self) {
            try await values.value(
                forKey: "n", options: options(CacheResilience(hardTimeout: .milliseconds(50)))
            ) {
                await latch.wait()
                return 1
            }
        }
        #expect(error?.code == .timedOut)
        latch.open()
    }

    @Test("Invalid options are refused before the factory runs")
    func invalidOptions() async throws {
        let harness = try await FacadeHarness("vr-invalid")
        let runs = CallCounter()
        let error = await #expect(throws: UnifiedCacheError.self) {
            try await harness.session(.alice).values.value(
                forKey: "n", options: options(CacheResilience(eagerRefreshThreshold: 0))
            ) { runs.increment() }
        }
        #expect(error?.code == .invalidValueRequest)
        #expect(runs.count == 0)
    }

    @Test("1,000 concurrent hits past the eager-refresh threshold run the factory once in the background")
    func eagerRefreshOnce() async throws {
        let harness = try await FacadeHarness("vr-eager")
        let values = harness.session(.alice).values
        let eager = options(CacheResilience(eagerRefreshThreshold: 0.9))
        let runs = CallCounter()
        // The refresh finishes only once every hit was answered: an instant one could store 2 while the last of the
        // 1,000 hits were still being started, and they would rightly answer it.
        let (hitsAnswered, openRefresh) = AsyncStream<Void>.makeStream()
        let make: @Sendable () async throws -> Int = {
            let run = runs.increment()
            if run > 1 {
                for await _ in hitsAnswered { break }
            }
            return run
        }
        #expect(try await values.value(forKey: "n", options: eager, factory: make) == 1)
        harness.clock.advance(by: .seconds(28))
        let answers = await withTaskGroup(of: Int?.self) { group in
            for _ in 0..<1_000 {
                group.addTask { try? await values.value(forKey: "n", options: eager, factory: make) }
            }
            return await group.reduce(into: [Int?]()) { $0.append($1) }
        }
        openRefresh.finish()
        #expect(answers.allSatisfy { $0 == 1 })
        await harness.hub.valueCore.backgroundRefreshes.drain()
        #expect(runs.count == 2)
        #expect(try await values.value(forKey: "n", options: eager, factory: make) == 2)
    }

    @Test("A background completion after a clear of its tag, or after the session ended, is not stored")
    func clearsWinOverBackgroundCompletion() async throws {
        let harness = try await FacadeHarness("vr-clear")
        let session = harness.session(.alice)
        let soft = options(CacheResilience(failSafeMaxDuration: .seconds(3_600), softTimeout: .milliseconds(20)))
        _ = try await session.values.value(forKey: "n", tags: ["t"], options: soft) { 1 }
        harness.clock.advance(by: .seconds(31))
        let latch = Latch()
        let started = CallCounter()
        #expect(
            try await session.values.value(forKey: "n", tags: ["t"], options: soft) {
                started.increment()
                await latch.wait()
                return 2
            } == 1)
        try await waitUntil { started.count == 1 }
        await session.values.clear(tag: "t")
        latch.open()
        try await waitUntil { harness.hub.values.statistics().discardedAfterClear == 1 }
        #expect(!harness.hub.holdsValue("n", in: session.scope))

        // The same after logout.
        _ = try await session.values.value(forKey: "m", options: soft) { 1 }
        harness.clock.advance(by: .seconds(31))
        let second = Latch()
        #expect(
            try await session.values.value(forKey: "m", options: soft) {
                started.increment()
                await second.wait()
                return 2
            } == 1)
        try await waitUntil { started.count == 2 }
        _ = await harness.hub.endSession(id: session.id)
        second.open()
        try await waitUntil { harness.hub.values.statistics().discardedAfterClear == 2 }
        #expect(!harness.hub.holdsValue("m", in: session.scope))
    }
}
