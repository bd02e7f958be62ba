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

    // The 32-bit parts, one field each (an `InlineArray` would need Swift 6.2; the package builds with 6.0).
    private var hits: UInt32 = 0
    private var misses: UInt32 = 0
    private var staleHits: UInt32 = 0
    private var expirations: UInt32 = 0
    private var evictions: UInt32 = 0
    private var inserts: UInt32 = 0
    private var networkFetches: UInt32 = 0
    private var deduplicatedJoins: UInt32 = 0
    /// What each counter carried past `UInt32.max`, by `Counter.rawValue`; empty until one does.
    private var carried: [Int] = []

    /// Adds `amount` (not negative) to `counter`.
    mutating func add(_ amount: Int, to counter: Counter) {
        let total = Int(self[narrow: counter]) + amount
        if total <= Int(UInt32.max) {
            self[narrow: counter] = UInt32(total)
            return
        }
        if carried.isEmpty {
            carried = Array(repeating: 0, count: Counter.allCases.count)
        }
        carried[counter.rawValue] += total
        self[narrow: counter] = 0
    }

    subscript(counter: Counter) -> Int {
        Int(self[narrow: counter]) + (carried.isEmpty ? 0 : carried[counter.rawValue])
    }

    /// The 32-bit part of `counter`.
    private subscript(narrow counter: Counter) -> UInt32 {
        get {
            switch counter {
            case .hits: hits
            case .misses: misses
            case .staleHits: staleHits
            case .expirations: expirations
            case .evictions: evictions
            case .inserts: inserts
            case .networkFetches: networkFetches
            case .deduplicatedJoins: deduplicatedJoins
            }
        }
        set {
            switch counter {
            case .hits: hits = newValue
            case .misses: misses = newValue
            case .staleHits: staleHits = newValue
            case .expirations: expirations = newValue
            case .evictions: evictions = newValue
            case .inserts: inserts = newValue
            case .networkFetches: networkFetches = newValue
            case .deduplicatedJoins: deduplicatedJoins = newValue
            }
        }
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
