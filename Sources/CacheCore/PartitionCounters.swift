/// The counters of one partition, in 32 bits each while they fit: 40 bytes per scope instead of the 80 of a
/// ``CacheStatistics``, exact at any count.
///
/// A counter that would pass `UInt32.max` moves its whole count to a wide carry (an array made then, for every
/// counter, so partitions that never get there pay nothing for it) and restarts from zero; its value is the
/// carry plus the 32-bit part. Changed only under the partition's stripe lock, like the rest of the partition.
struct PartitionCounters: Sendable {
    /// The counters a partition keeps; each is the ``CacheStatistics`` field of the same name.
    enum Counter: Int, CaseIterable {
        case hits, misses, staleHits, expirations, evictions, inserts, networkFetches, deduplicatedJoins
    }

    private var narrow = InlineArray<8, UInt32>(repeating: 0)
    /// What each counter carried past `UInt32.max`; empty until one does.
    private var carried: [Int] = []

    /// Adds `amount` (not negative) to `counter`.
    mutating func add(_ amount: Int, to counter: Counter) {
        let slot = counter.rawValue
        let total = Int(narrow[slot]) + amount
        if total <= Int(UInt32.max) {
            narrow[slot] = UInt32(total)
            return
        }
        if carried.isEmpty {
            carried = Array(repeating: 0, count: Counter.allCases.count)
        }
        carried[slot] += total
        narrow[slot] = 0
    }

    subscript(counter: Counter) -> Int {
        let slot = counter.rawValue
        return Int(narrow[slot]) + (carried.isEmpty ? 0 : carried[slot])
    }

    /// The counters as statistics (current sizes zero; the partition fills them in).
    var statistics: CacheStatistics {
        CacheStatistics(
            hits: self[.hits],
            misses: self[.misses],
            staleHits: self[.staleHits],
            expirations: self[.expirations],
            evictions: self[.evictions],
            inserts: self[.inserts],
            networkFetches: self[.networkFetches],
            deduplicatedJoins: self[.deduplicatedJoins]
        )
    }
}
