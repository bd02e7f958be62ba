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
        #expect(FreshnessRules(config).separatedFields == ["Account": ["balance", "name"], "Profile": ["email"]])
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
