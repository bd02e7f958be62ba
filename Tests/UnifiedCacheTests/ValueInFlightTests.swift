import CacheCore
import FixtureSupport
import Foundation
import Testing

@testable import UnifiedCache

@Suite("The value door runs one factory per key and scope, whatever its callers do")
struct ValueInFlightTests {
    struct Boom: Error, Equatable {}

    @Test("concurrent misses of one key share one factory run and its value")
    func oneRunForConcurrentMisses() async throws {
        let harness = try await FacadeHarness("values-dedup")
        let values = harness.session(.alice).values
        let runs = CallCounter()
        let release = Latch()
        let results = try await withThrowingTaskGroup(of: Int.self) { group in
            for _ in 0..<100 {
                group.addTask {
                    try await values.value(forKey: "k") {
                        await release.wait()
                        return runs.increment()
                    }
                }
            }
            try await waitUntil { harness.hub.valueCore.flights.waiterCount == 100 }
            release.open()
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(runs.count == 1)
        #expect(results == Array(repeating: 1, count: 100))
        #expect(harness.hub.values.statistics().joinedCalls == 99)
    }

    @Test("a factory that throws gives its error to every waiter, stores nothing, and the next call runs again")
    func throwingFactory() async throws {
        let harness = try await FacadeHarness("values-throws")
        let values = harness.session(.alice).values
        let runs = CallCounter()
        let release = Latch()
        let failures = await withTaskGroup(of: Bool.self) { group in
            for _ in 0..<10 {
                group.addTask {
                    do {
                        _ = try await values.value(forKey: "k") { () async throws -> Int in
                            runs.increment()
                            await release.wait()
                            throw Boom()
                        }
                        return false
                    } catch {
                        return error is Boom
                    }
                }
            }
            try? await waitUntil { harness.hub.valueCore.flights.waiterCount == 10 }
            release.open()
            return await group.reduce(0) { $0 + ($1 ? 1 : 0) }
        }
        #expect(failures == 10)
        #expect(runs.count == 1)
        #expect(!harness.hub.holdsValue("k", in: values.scope))
        #expect(try await values.value(forKey: "k") { 7 } == 7)
        #expect(harness.hub.values.statistics().factoryFailures == 1)
    }

    @Test("a cancelled caller of a hanging factory returns at once; the other waiters get the value")
    func cancelledWaiterOfAHangingFactory() async throws {
        let harness = try await FacadeHarness("values-cancel")
        let values = harness.session(.alice).values
        let entered = Latch()
        let release = Latch()
        let factory: @Sendable () async throws -> String = {
            entered.open()
            await release.wait()  // hangs until the test lets it go
            return "done"
        }
        let leader = Task { try await values.value(forKey: "k", factory: factory) }
        await entered.wait()
        let waiter = Task { try await values.value(forKey: "k", factory: factory) }
        try await waitUntil { harness.hub.valueCore.flights.waiterCount == 2 }

        leader.cancel()
        await #expect(throws: CancellationError.self) { try await leader.value }
        #expect(harness.hub.valueCore.flights.waiterCount == 1)

        release.open()
        #expect(try await waiter.value == "done")
        #expect(harness.hub.holdsValue("k", in: values.scope))
    }

    @Test("after a clear, a caller does not join the run that started before it, and that run stores nothing")
    func clearStartsANewRun() async throws {
        let harness = try await FacadeHarness("values-clear-new-run")
        let values = harness.session(.alice).values
        let entered = Latch()
        let release = Latch()
        let old = Task {
            try await values.value(forKey: "k") {
                entered.open()
                await release.wait()
                return "old"
            }
        }
        await entered.wait()

        await values.clear(forKey: "k")
        #expect(try await values.value(forKey: "k") { "new" } == "new")
        release.open()
        #expect(try await old.value == "old")
        #expect(try await values.value(forKey: "k") { "later" } == "new")
    }

    @Test("one key read as two types runs a factory for each and holds the last")
    func twoTypesUnderOneKey() async throws {
        let harness = try await FacadeHarness("values-types")
        let values = harness.session(.alice).values
        #expect(try await values.value(forKey: "k") { 1 } == 1)
        #expect(try await values.value(forKey: "k") { "one" } == "one")
        #expect(try await values.value(forKey: "k") { "two" } == "one")
        #expect(harness.hub.values.statistics().factoryRuns == 2)
    }
}
