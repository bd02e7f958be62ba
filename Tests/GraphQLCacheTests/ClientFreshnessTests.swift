import CacheCore
import Testing

@testable import GraphQLCache

@Suite("GraphQL client: the freshness rules and their precedence")
struct ClientFreshnessTests {
    private let now = CacheInstant(nanoseconds: 1_000_000_000_000)

    private func ago(_ seconds: Int64) -> CacheInstant {
        CacheInstant(nanoseconds: now.nanoseconds - seconds * 1_000_000_000)
    }

    /// Staleness of an answer whose fields were written `seconds` ago, per typename and coordinate.
    private func staleness(
        _ config: GraphQLCacheConfig,
        query: QueryCacheTimeout = .useDefault,
        staleBefore: CacheInstant? = nil,
        types: [String: Int64] = [:],
        coordinates: [String: Int64] = [:]
    ) -> Duration? {
        let rules = FreshnessRules(config)
        guard let freshness = rules.freshness(queryTimeout: query, now: now, staleBefore: staleBefore) else {
            return nil
        }
        let byType = types.mapValues(ago)
        let byCoordinate = coordinates.mapValues(ago)
        let oldest = (Array(byType.values) + Array(byCoordinate.values)).min()
        return freshness.staleness(oldest, byType, byCoordinate)
    }

    @Test("global default: stale only past 300 s; switching timeouts off makes nothing stale")
    func global() {
        #expect(staleness(GraphQLCacheConfig(), types: ["Account": 300]) == nil)
        #expect(staleness(GraphQLCacheConfig(), types: ["Account": 301]) == .seconds(1))
        #expect(staleness(GraphQLCacheConfig(isTimeoutEnabled: false), types: ["Account": 100_000]) == nil)
        #expect(staleness(GraphQLCacheConfig(defaultTimeout: 0), types: ["Account": 1]) == .seconds(1))
    }

    @Test("explicit or query-type timeouts replace every per-type and per-field rule")
    func queryLevelWins() {
        let config = GraphQLCacheConfig(typeTimeouts: ["Account": 10], fieldTimeouts: ["Account.balance": 5])
        #expect(staleness(config, query: 60, types: ["Account": 50], coordinates: ["Account.balance": 50]) == nil)
        #expect(staleness(config, query: 60, types: ["Account": 70]) == .seconds(10))
        #expect(staleness(config, query: .never, types: ["Account": 1_000_000]) == nil)
    }

    @Test("per-field beats per-type beats global; the worst field decides")
    func perFieldAndType() {
        let config = GraphQLCacheConfig(
            typeTimeouts: ["Account": 30, "Static": .never],
            fieldTimeouts: ["Account.balance": 10, "Account.name": 3_600, "Profile.email": .useDefault]
        )
        #expect(staleness(config, types: ["Account": 30, "Query": 300]) == nil)
        #expect(staleness(config, types: ["Account": 31]) == .seconds(1))
        #expect(staleness(config, types: ["Static": 1_000_000, "Query": 10]) == nil)
        #expect(staleness(config, coordinates: ["Account.name": 3_000]) == nil)
        #expect(staleness(config, coordinates: ["Account.balance": 15]) == .seconds(5))
        #expect(staleness(config, types: ["Account": 40], coordinates: ["Account.balance": 25]) == .seconds(15))
        // A field rule of .useDefault falls back to its type, then to the global default.
        #expect(staleness(config, coordinates: ["Profile.email": 301]) == .seconds(1))
        // A .useDefault field rule is no rule of its own: its field is judged with its type.
        #expect(FreshnessRules(config).separatedFields == ["Account": ["balance", "name"]])
    }

    @Test("an upstream hint decides below the local rules: stale past its end, ignored by a query-level timeout")
    func upstreamHintBelowLocalRules() throws {
        let rules = FreshnessRules(GraphQLCacheConfig())
        let ended = ago(10)
        let future = CacheInstant(nanoseconds: now.nanoseconds + 5_000_000_000)
        let byDefault = try #require(rules.freshness(queryTimeout: .useDefault, now: now, staleBefore: nil))
        #expect(byDefault.staleness(ago(20), ["Query": ago(1)], [:], upstreamExpiry: ended) == .seconds(10))
        #expect(byDefault.staleness(ago(20), ["Query": ago(1)], [:], upstreamExpiry: future) == nil)
        // The hinted fields are not in `byTypename`: an old hinted write within its hint is fresh past the default.
        #expect(byDefault.staleness(ago(400), ["Query": ago(1)], [:], upstreamExpiry: future) == nil)
        let explicit = try #require(rules.freshness(queryTimeout: 60, now: now, staleBefore: nil))
        #expect(explicit.staleness(ago(20), ["Query": ago(20)], [:], upstreamExpiry: ended) == nil)
        let off = FreshnessRules(GraphQLCacheConfig(isTimeoutEnabled: false))
        #expect(off.freshness(queryTimeout: .useDefault, now: now, staleBefore: nil) == nil)
        let typed = FreshnessRules(GraphQLCacheConfig(typeTimeouts: ["Account": 30, "Other": .useDefault]))
        #expect(typed.ruledTypenames == ["Account"])
    }

    @Test("answers written at or before the timestamps were cleared are stale, even with timeouts off")
    func clearedTimestamps() {
        let cleared = ago(10)
        #expect(staleness(GraphQLCacheConfig(), staleBefore: cleared, types: ["Account": 20]) == .seconds(10))
        #expect(staleness(GraphQLCacheConfig(), staleBefore: cleared, types: ["Account": 5]) == nil)
        let off = GraphQLCacheConfig(isTimeoutEnabled: false)
        #expect(staleness(off, query: .never, staleBefore: cleared, types: ["Account": 20]) == .seconds(10))
    }
}
