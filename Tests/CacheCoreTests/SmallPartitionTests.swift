import Foundation
import Testing

@testable import CacheCore

/// A partition of up to `KeyIndex.scanLimit` entries scans its slab instead of keeping a hash table, an expiry
/// heap and secondary indexes; past that it builds them. These tests hold both modes, and the switch between
/// them, to the answers of a plain model.
@Suite("Small partitions: scanning up to the limit, indexed past it")
struct SmallPartitionTests {
    @Test("random operations growing a partition past the limit and shrinking it back answer like a simple model")
    func randomOperationsMatchTheModel() {
        var sawSmall = false
        var sawIndexed = false
        var sawShrunkAfterIndexing = false
        for seed in 1...24 {
            var run = ModelRun(seed: UInt64(seed))
            for step in 0..<600 {
                // Phases of growth and shrinkage, so runs cross the limit both ways.
                run.step(growing: (step / 75) % 2 == 0)
                #expect(run.mismatch == nil, "seed \(seed), step \(step): \(run.mismatch ?? "")")
                if run.mismatch != nil {
                    return
                }
                sawSmall = sawSmall || !run.partition.isIndexed
                sawIndexed = sawIndexed || run.partition.isIndexed
                sawShrunkAfterIndexing =
                    sawShrunkAfterIndexing
                    || (run.partition.isIndexed && run.partition.entryCount <= KeyIndex.scanLimit)
            }
        }
        #expect(sawSmall)
        #expect(sawIndexed)
        #expect(sawShrunkAfterIndexing)
    }

    @Test("the entry past the limit builds the indexes, and every key, clear and expiry still answers the same")
    func crossingTheLimit() {
        var partition = CachePartition()
        let clock = CacheInstant(nanoseconds: 0)
        for number in 0..<KeyIndex.scanLimit {
            _ = partition.store(
                entry(number, at: clock, expiresIn: 100 - number, domain: number.isMultiple(of: 2) ? "even" : "odd"),
                key: "k\(number)", limits: roomy, budget: nil, evictsForBudget: false)
        }
        #expect(!partition.isIndexed)
        #expect(partition.expiryIndex.isEmpty)

        _ = partition.store(
            entry(99, at: clock, expiresIn: 1, domain: "odd"), key: "k99", limits: roomy, budget: nil,
            evictsForBudget: false)

        #expect(partition.isIndexed)
        #expect(partition.expiryIndex.min?.horizon == CacheInstant(nanoseconds: 1_000_000_000))
        for number in 0..<KeyIndex.scanLimit {
            #expect(partition.peek("k\(number)", at: clock).entry?.value as? Int == number)
        }
        let (cleared, _) = partition.remove(.domain("odd"), includeUplifted: false, budget: nil)
        #expect(Set(cleared.entries.map(\.key)) == ["k1", "k3", "k5", "k7", "k99"])
        let (expired, _) = partition.removeExpired(through: CacheInstant(nanoseconds: 97_000_000_000), budget: nil)
        #expect(expired.entries.map(\.key) == ["k6", "k4"])
        #expect(partition.snapshot.map(\.key) == ["k2", "k0"])
    }

    @Test("a small partition finds only the exact key: a key that is a prefix of another one is a miss")
    func exactKeysOnly() {
        var partition = CachePartition()
        let now = CacheInstant(nanoseconds: 0)
        _ = partition.store(entry(1, at: now), key: "/api/me/1", limits: roomy, budget: nil, evictsForBudget: false)

        #expect(partition.lookup("/api/me", at: now).isMiss)
        #expect(partition.lookup("/api/me/10", at: now).isMiss)
        #expect(partition.lookup("/api/me/1", at: now).isFresh)
        #expect(partition.statistics.misses == 2)
        #expect(partition.statistics.hits == 1)
        #expect(!partition.isIndexed)
    }

    @Test("a small partition is scheduled at its exact earliest expiry and purges in expiry order")
    func smallExpiry() {
        var partition = CachePartition()
        let now = CacheInstant(nanoseconds: 0)
        for (key, seconds) in [("late", 30), ("early", 10), ("middle", 20)] {
            _ = partition.store(
                entry(seconds, at: now, expiresIn: seconds), key: key, limits: roomy, budget: nil,
                evictsForBudget: false)
        }
        _ = partition.store(entry(0, at: now), key: "forever", limits: roomy, budget: nil, evictsForBudget: false)

        #expect(partition.takeSchedule() == CacheInstant(nanoseconds: 10_000_000_000))
        #expect(partition.takeSchedule() == nil)
        let (removals, _) = partition.removeExpired(through: CacheInstant(nanoseconds: 25_000_000_000), budget: nil)

        #expect(removals.entries.map(\.key) == ["early", "middle"])
        #expect(removals.reasons == [.expired, .expired])
        #expect(partition.statistics.expirations == 2)
        #expect(partition.snapshot.map(\.key) == ["forever", "late"])
        #expect(partition.expiryIndex.isEmpty)
    }

    @Test("counters stay exact past 32 bits: a counter carries its count over, each counter on its own")
    func countersCarry() {
        var counters = PartitionCounters()
        counters.add(Int(UInt32.max) - 1, to: .hits)
        counters.add(1, to: .hits)
        #expect(counters[.hits] == Int(UInt32.max))

        counters.add(1, to: .hits)
        counters.add(3, to: .hits)
        counters.add(Int(UInt32.max), to: .evictions)
        counters.add(7, to: .evictions)
        counters.add(5, to: .misses)

        #expect(counters[.hits] == Int(UInt32.max) + 4)
        #expect(counters[.evictions] == Int(UInt32.max) + 7)
        #expect(counters[.misses] == 5)
        #expect(counters.statistics.hits == Int(UInt32.max) + 4)
        #expect(counters.statistics.inserts == 0)
    }
}

private let roomy = PartitionLimits(maxEntries: 1_000, maxBytes: 1 << 30)

private func entry(
    _ value: Int,
    at now: CacheInstant,
    expiresIn seconds: Int? = nil,
    domain: String? = nil,
    account: String? = nil,
    uplifted: Bool = false,
    bytes: Int = 10,
    staleRetention: Int = 0
) -> CacheEntry {
    CacheEntry(
        value: value,
        metadata: CacheEntryMetadata(
            domains: domain.map { [$0] } ?? [], accounts: account.map { [$0] } ?? [], isUplifted: uplifted,
            staleRetention: .seconds(staleRetention)),
        storedAt: now,
        storedAtDate: Date(timeIntervalSince1970: 0),
        byteCost: bytes,
        chargedBytes: bytes,
        expiresAt: seconds.map { now.advanced(by: .seconds($0)) }
    )
}

/// One random run: the same operations on a partition and on a list kept most recent first.
private struct ModelRun {
    struct Entry {
        let key: String
        let value: Int
        let expiresAt: CacheInstant?
        let domain: String?
        let account: String?
        let uplifted: Bool
        let bytes: Int
        /// Seconds kept past expiry for a stale-serving policy.
        let retention: Int

        /// When the purge may remove it: its expiry plus its retention.
        var horizon: CacheInstant? {
            expiresAt.map { $0.advanced(by: .seconds(retention)) }
        }
    }

    var partition = CachePartition()
    var model: [Entry] = []
    var expected = CacheStatistics()
    var now = CacheInstant(nanoseconds: 0)
    var mismatch: String?
    private var generator: SplitMix
    private var nextValue = 0
    private let limits = PartitionLimits(maxEntries: 14, maxBytes: 500)
    private let keys = (0..<18).map { "k\($0 % 3)/\($0)" }

    init(seed: UInt64) {
        generator = SplitMix(seed: seed)
    }

    mutating func step(growing: Bool) {
        let roll = Int.random(in: 0..<100, using: &generator)
        switch roll {
        case ..<(growing ? 45 : 10): store()
        case ..<(growing ? 70 : 40): lookup()
        case ..<(growing ? 75 : 65): remove()
        case ..<(growing ? 82 : 77): clear()
        case ..<(growing ? 88 : 85): expire()
        case ..<(growing ? 92 : 92): evict()
        case ..<(growing ? 96 : 96): refresh()
        default: now = now.advanced(by: .seconds(Int.random(in: 0...4, using: &generator)))
        }
        compare()
    }

    private mutating func store() {
        let key = keys.randomElement(using: &generator)!
        nextValue += 1
        let lifetime = Bool.random(using: &generator) ? Int.random(in: 1...20, using: &generator) : nil
        let domain = ["d1", "d2", nil].randomElement(using: &generator)!
        let account = ["a1", nil].randomElement(using: &generator)!
        let uplifted = Int.random(in: 0..<5, using: &generator) == 0
        let bytes = Int.random(in: 10...60, using: &generator)
        let retention = [0, 0, 3, 10].randomElement(using: &generator)!
        let stored = Entry(
            key: key, value: nextValue, expiresAt: lifetime.map { now.advanced(by: .seconds($0)) }, domain: domain,
            account: account, uplifted: uplifted, bytes: bytes, retention: retention)
        let removals = partition.store(
            entry(
                nextValue, at: now, expiresIn: lifetime, domain: domain, account: account, uplifted: uplifted,
                bytes: bytes, staleRetention: retention),
            key: key, limits: limits, budget: nil, evictsForBudget: false)

        model.removeAll { $0.key == key }
        var evicted: [String] = []
        while model.count >= limits.maxEntries {
            evicted.append(model.removeLast().key)
        }
        while model.reduce(0, { $0 + $1.bytes }) + bytes > limits.maxBytes, !model.isEmpty {
            evicted.append(model.removeLast().key)
        }
        model.insert(stored, at: 0)
        expected.inserts += 1
        expected.evictions += evicted.count
        check(removals.entries.map(\.key) == evicted, "store \(key) evicted \(removals.entries.map(\.key))")
    }

    private mutating func lookup() {
        let key = keys.randomElement(using: &generator)!
        let result = partition.lookup(key, at: now)
        guard let position = model.firstIndex(where: { $0.key == key }) else {
            expected.misses += 1
            check(result.entry == nil, "lookup \(key) found a removed key")
            return
        }
        let found = model.remove(at: position)
        model.insert(found, at: 0)
        let fresh = found.expiresAt.map { now < $0 } ?? true
        if fresh {
            expected.hits += 1
        } else {
            expected.staleHits += 1
        }
        check(result.entry?.value as? Int == found.value, "lookup \(key) answered another value")
        if case .fresh = result {
            check(fresh, "lookup \(key) fresh after expiry")
        } else {
            check(!fresh, "lookup \(key) stale before expiry")
        }
    }

    private mutating func refresh() {
        let key = keys.randomElement(using: &generator)!
        let lifetime = Bool.random(using: &generator) ? Int.random(in: 1...20, using: &generator) : nil
        let expiresAt = lifetime.map { now.advanced(by: .seconds($0)) }
        let refreshed = partition.refresh(key) { $0.expiresAt = expiresAt }
        guard let position = model.firstIndex(where: { $0.key == key }) else {
            check(refreshed == nil, "refresh \(key) found a removed key")
            return
        }
        let old = model.remove(at: position)
        model.insert(
            Entry(
                key: key, value: old.value, expiresAt: expiresAt, domain: old.domain, account: old.account,
                uplifted: old.uplifted, bytes: old.bytes, retention: old.retention),
            at: 0)
        check(refreshed?.value as? Int == old.value, "refresh \(key) answered another value")
    }

    private mutating func remove() {
        let key = keys.randomElement(using: &generator)!
        let removed = partition.remove(key, budget: nil)
        let position = model.firstIndex { $0.key == key }
        check((removed?.entry.value as? Int) == position.map { model[$0].value }, "remove \(key)")
        if let position {
            model.remove(at: position)
        }
    }

    private mutating func clear() {
        let targets: [ClearTarget] = [.domain("d1"), .domain("d2"), .account("a1"), .keyPrefix("k1/"), .uplifted]
        let target = targets.randomElement(using: &generator)!
        let includeUplifted = target == .uplifted || Bool.random(using: &generator)
        let (removals, kept) = partition.remove(target, includeUplifted: includeUplifted, budget: nil)
        let selected = model.filter { stored in
            switch target {
            case .domain(let domain): stored.domain == domain
            case .account(let account): stored.account == account
            case .keyPrefix(let prefix): stored.key.hasPrefix(prefix)
            case .uplifted: stored.uplifted
            default: false
            }
        }
        let removed = selected.filter { includeUplifted || !$0.uplifted }
        model.removeAll { stored in removed.contains { $0.key == stored.key } }
        check(Set(removals.entries.map(\.key)) == Set(removed.map(\.key)), "clear \(target) removed other keys")
        check(kept == selected.count - removed.count, "clear \(target) kept \(kept) uplifted")
    }

    private mutating func expire() {
        let (removals, _) = partition.removeExpired(through: now, budget: nil)
        let due = model.filter { $0.horizon.map { $0 <= now } ?? false }
        model.removeAll { $0.horizon.map { $0 <= now } ?? false }
        expected.expirations += due.count
        check(Set(removals.entries.map(\.key)) == Set(due.map(\.key)), "purge removed other keys")
        let order = removals.entries.compactMap(\.entry.staleHorizon)
        check(order == order.sorted(), "purge out of horizon order")
    }

    private mutating func evict() {
        let bytes = Int.random(in: 1...120, using: &generator)
        let removals = partition.evictExpiredFirst(releasing: bytes, at: now, budget: nil)
        var released = 0
        var evicted: [String] = []
        // Expired entries first, least recent first; then the least recent fresh ones.
        var position = model.count - 1
        while released < bytes, position >= 0 {
            if let expiresAt = model[position].expiresAt, expiresAt <= now {
                let expired = model.remove(at: position)
                released += expired.bytes
                evicted.append(expired.key)
            }
            position -= 1
        }
        while released < bytes, let last = model.popLast() {
            released += last.bytes
            evicted.append(last.key)
        }
        expected.evictions += evicted.count
        check(removals.entries.map(\.key) == evicted, "evict \(bytes) B took other entries")
    }

    private mutating func compare() {
        check(partition.snapshot.map(\.key) == model.map(\.key), "order \(partition.snapshot.map(\.key))")
        check(partition.snapshot.map { $0.entry.value as? Int } == model.map(\.value), "values differ")
        var statistics = expected
        statistics.entryCount = model.count
        statistics.byteCount = model.reduce(0) { $0 + $1.bytes }
        check(partition.statistics == statistics, "statistics \(partition.statistics) instead of \(statistics)")
        let earliest = model.compactMap(\.horizon).min()
        if partition.isIndexed {
            // The heap may still hold stale items, earlier than any live expiry, never later.
            let heapMinimum = partition.expiryIndex.min?.horizon
            check(earliest.map { live in heapMinimum.map { $0 <= live } ?? false } ?? true, "heap lost an expiry")
        } else {
            check(partition.entries.earliestHorizon == earliest, "scan found another earliest expiry")
            check(partition.expiryIndex.isEmpty, "a small partition filled its heap")
        }
    }

    private mutating func check(_ condition: Bool, _ message: String) {
        if !condition, mismatch == nil {
            mismatch = message
        }
    }
}
