import CacheCore
import FixtureSupport
import Foundation
import Testing

@testable import UnifiedCache

/// The value door's jitter: values written in one burst expire spread over the bound, never before their duration
/// and never past it plus the bound.
@Suite("Value door jitter: values written together expire spread within the bound")
struct ValueJitterTests {
    private let options = ValueCacheOptions(duration: .seconds(30))

    /// How many of `count` values written at the start are still fresh `elapsed` after it.
    private func freshCount(_ harness: FacadeHarness, count: Int) -> Int {
        (0..<count).count { index in
            if case .fresh = harness.hub.valueCore.store.lookup("v\(index)", in: .shared) { return true }
            return false
        }
    }

    private func writeValues(_ harness: FacadeHarness, count: Int) async throws {
        for index in 0..<count {
            _ = try await harness.hub.values.value(forKey: "v\(index)", options: options) { index }
        }
    }

    @Test("1,000 values of 30 s under a 10 s jitter: all fresh before 30 s, none past 40 s, spread between")
    func expiriesSpreadWithinTheBound() async throws {
        let harness = try await FacadeHarness(
            "vj-spread", valueJitter: CacheJitter(maxDuration: .seconds(10)))
        try await writeValues(harness, count: 1_000)
        harness.clock.advance(by: .milliseconds(29_999))
        #expect(freshCount(harness, count: 1_000) == 1_000)
        harness.clock.advance(by: .milliseconds(5_001))  // 35 s: the middle of the bound
        let middle = freshCount(harness, count: 1_000)
        #expect(middle > 300 && middle < 700)
        harness.clock.advance(by: .milliseconds(5_001))  // just past 40 s
        #expect(freshCount(harness, count: 1_000) == 0)
    }

    @Test("Without jitter every value of a burst expires at its duration, together")
    func noJitterExpiresTogether() async throws {
        let harness = try await FacadeHarness("vj-none")
        try await writeValues(harness, count: 100)
        harness.clock.advance(by: .milliseconds(29_999))
        #expect(freshCount(harness, count: 100) == 100)
        harness.clock.advance(by: .milliseconds(2))
        #expect(freshCount(harness, count: 100) == 0)
    }

    @Test("A fraction cap bounds the extra by the value's own lifetime")
    func fractionCapsTheExtra() async throws {
        let harness = try await FacadeHarness(
            "vj-fraction",
            valueJitter: CacheJitter(maxDuration: .seconds(60), maxFraction: 0.1, random: { .max }))
        try await writeValues(harness, count: 10)
        harness.clock.advance(by: .milliseconds(32_990))  // the largest extra: 10 % of 30 s
        #expect(freshCount(harness, count: 10) == 10)
        harness.clock.advance(by: .milliseconds(20))
        #expect(freshCount(harness, count: 10) == 0)
    }
}
