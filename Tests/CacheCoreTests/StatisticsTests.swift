import CacheCore
import Foundation
import Testing

@Suite("Statistics")
struct StatisticsTests {
    @Test("hits, stale hits, misses, inserts and sizes are counted per scope with their rates")
    func perScopeCounters() throws {
        let clock = ManualCacheClock()
        let store = try makeStore(clock: clock)
        store.put("v", "fresh", in: alice, CacheEntryMetadata(timeout: .never))
        store.put("v", "old", in: alice, CacheEntryMetadata(timeout: .seconds(1)))
        clock.advance(seconds: 2)

        for _ in 0..<6 { _ = store.lookup("fresh", in: alice) }
        for _ in 0..<2 { _ = store.lookup("old", in: alice) }
        for _ in 0..<2 { _ = store.lookup("absent", in: alice) }
        _ = store.peek("fresh", in: alice)

        let statistics = store.statistics(for: alice)
        #expect(statistics.hits == 6)
        #expect(statistics.staleHits == 2)
        #expect(statistics.misses == 2)
        #expect(statistics.inserts == 2)
        #expect(statistics.entryCount == 2)
        #expect(statistics.byteCount == ("v" + "fresh" + "v" + "old").utf8.count)
        #expect(statistics.lookups == 10)
        #expect(statistics.hitRate == 0.6)
        #expect(statistics.staleHitRate == 0.2)
        #expect(statistics.effectiveHitRate == 0.8)
        #expect(store.statistics(for: bob) == CacheStatistics())
    }

    @Test("rates are zero, not NaN, before any lookup")
    func ratesWithoutLookups() {
        let empty = CacheStatistics()

        #expect(empty.hitRate == 0)
        #expect(empty.effectiveHitRate == 0)
        #expect(empty.staleHitRate == 0)
    }

    @Test("statistics add up field by field")
    func addition() {
        let one = CacheStatistics(
            hits: 1, misses: 2, staleHits: 3, expirations: 4, evictions: 5, inserts: 6,
            networkFetches: 7, deduplicatedJoins: 8, entryCount: 9, byteCount: 10)
        var total = one + one
        total += CacheStatistics(hits: 1)

        #expect(
            total
                == CacheStatistics(
                    hits: 3, misses: 4, staleHits: 6, expirations: 8, evictions: 10, inserts: 12,
                    networkFetches: 14, deduplicatedJoins: 16, entryCount: 18, byteCount: 20))
    }

    @Test("process totals keep the counters of scopes already cleared but not their sizes")
    func processTotalsIncludeDroppedScopes() throws {
        let store = try makeStore()
        store.put("v", "k", in: alice)
        _ = store.lookup("k", in: alice)
        _ = store.lookup("x", in: alice)
        store.put("v", "k", in: bob)
        _ = store.lookup("k", in: bob)

        store.clear(scope: alice, reason: .logout)

        let total = store.statistics()
        #expect(total.hits == 2)
        #expect(total.misses == 1)
        #expect(total.inserts == 2)
        #expect(total.entryCount == 1)
        #expect(total.byteCount == 2)
        #expect(store.statistics(for: alice) == CacheStatistics())
    }

    @Test("network fetches and de-duplicated joins reported by the caching layers are counted")
    func recordedActivity() throws {
        let recorder = EventRecorder()
        let store = try makeStore(observer: recorder)

        store.record(.networkFetch(key: "k", status: 200, duration: .milliseconds(12)), in: alice)
        store.record(.networkFetch(key: "k", status: nil, duration: .seconds(30)), in: alice)
        store.record(.deduplicatedJoin(key: "k"), in: alice)

        let statistics = store.statistics(for: alice)
        #expect(statistics.networkFetches == 2)
        #expect(statistics.deduplicatedJoins == 1)
        #expect(store.statistics().networkFetches == 2)
        #expect(
            recorder.events == [
                .networkCall(scope: alice, key: "k", status: 200, duration: .milliseconds(12)),
                .networkCall(scope: alice, key: "k", status: nil, duration: .seconds(30)),
                .deduplicatedJoin(scope: alice, key: "k"),
            ])
    }

    @Test("statistics encode to JSON and back unchanged")
    func codable() throws {
        let statistics = CacheStatistics(hits: 3, misses: 1, entryCount: 2, byteCount: 512)

        let data = try JSONEncoder().encode(statistics)
        let decoded = try JSONDecoder().decode(CacheStatistics.self, from: data)

        #expect(decoded == statistics)
    }

    @Test("decoding statistics with a missing counter fails with a decoding error")
    func codableFailure() {
        let json = Data(#"{"hits": 1}"#.utf8)

        #expect(throws: DecodingError.self) {
            _ = try JSONDecoder().decode(CacheStatistics.self, from: json)
        }
    }
}
