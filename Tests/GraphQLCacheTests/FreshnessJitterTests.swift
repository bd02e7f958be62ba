import CacheCore
import Testing

@testable import GraphQLCache

@Suite("GraphQL client: jitter on the local time-to-live of each write")
struct FreshnessJitterTests {
    private let base = CacheInstant(nanoseconds: 1_000_000_000_000)

    private func jittered(_ maxDuration: Duration, fraction: Double? = nil) -> FreshnessRules {
        var config = GraphQLCacheConfig(defaultTimeout: 100)
        config.jitterMaxDuration = maxDuration
        config.jitterMaxFraction = fraction
        return FreshnessRules(config)
    }

    /// Whether a field of `Account` written at the `index`th instant (writes 1 ms apart) is stale `age` later.
    private func isStale(_ rules: FreshnessRules, index: Int, age: Duration) throws -> Bool {
        let written = base.advanced(by: .milliseconds(index))
        let now = written.advanced(by: age)
        let freshness = try #require(rules.freshness(queryTimeout: .useDefault, now: now, staleBefore: nil))
        return freshness.staleness(written, ["Account": written], [:]) != nil
    }

    @Test("10,000 writes of a 100 s rule turn stale spread over 100 to 110 s, none before, none after")
    func spreadWithinBounds() throws {
        let rules = jittered(.seconds(10))
        var staleAt105 = 0
        for index in 0..<10_000 {
            #expect(try !isStale(rules, index: index, age: .seconds(100)))
            #expect(try isStale(rules, index: index, age: .seconds(110) + .nanoseconds(1)))
            if try isStale(rules, index: index, age: .seconds(105)) { staleAt105 += 1 }
        }
        #expect((4_500...5_500).contains(staleAt105), "\(staleAt105) of 10,000 stale at 105 s")
    }

    @Test("a write's extra stays put between reads: once stale, stale at every later read")
    func stableBetweenReads() throws {
        let rules = jittered(.seconds(10))
        for index in 0..<200 {
            var wasStale = false
            for tenth in 1_000...1_100 {
                let stale = try isStale(rules, index: index, age: .milliseconds(tenth * 100))
                #expect(!wasStale || stale)
                #expect(try isStale(rules, index: index, age: .milliseconds(tenth * 100)) == stale)
                wasStale = stale
            }
        }
    }

    @Test("a share of the rule caps the extra; zero means none")
    func fractionAndNone() throws {
        let capped = jittered(.seconds(10), fraction: 0.02)  // 2 % of 100 s: at most 2 s
        let none = jittered(.zero)
        #expect(GraphQLCacheConfig().jitterMaxDuration == .zero)
        for index in 0..<1_000 {
            #expect(try isStale(capped, index: index, age: .seconds(102) + .nanoseconds(1)))
            #expect(try !isStale(none, index: index, age: .seconds(100)))
            #expect(try isStale(none, index: index, age: .seconds(100) + .nanoseconds(1)))
        }
    }

    @Test("the upstream's hint is never lengthened by jitter")
    func upstreamHintUntouched() throws {
        let rules = jittered(.seconds(10))
        for index in 0..<1_000 {
            let now = base.advanced(by: .milliseconds(index))
            let freshness = try #require(rules.freshness(queryTimeout: .useDefault, now: now, staleBefore: nil))
            let ended = now.advanced(by: .seconds(-1))
            let recent = now.advanced(by: .seconds(-2))
            #expect(freshness.staleness(recent, ["Query": recent], [:], upstreamExpiry: ended) == .seconds(1))
        }
    }
}
