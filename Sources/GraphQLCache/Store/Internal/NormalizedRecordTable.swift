import CacheCore
import GraphQLLanguage
import Synchronization

/// The records of one scope behind a reader-writer lock, plus lock-free mirrors of its sizes and counters.
///
/// `ScopedPartitions` (CacheCore) maps scopes to tables and owns the generation rules; its stripe lock is held
/// only to find a table, never while a table's lock is held, so the lock order is always stripe → table and a
/// long read of one session never blocks another session's lookups.
///
/// `@unchecked Sendable` is safe because `state` is only accessed inside `lock.withReadLock` (reading) or
/// `lock.withWriteLock` (reading and writing), and every other stored property is immutable or atomic.
final class NormalizedRecordTable: @unchecked Sendable {
    private let lock = ReadWriteLock()
    private var state = NormalizedTableState()

    /// Moves on every clear and on drop; a write proceeds only if the epoch it saw (with the scope's generation,
    /// under the stripe lock) is unchanged once it holds the write lock. That closes the window between the
    /// generation check and the merge, so nothing written before a clear lands after it. 32 bits (wrapping): a
    /// write would have to outlast 2³² clears of its scope to see the same epoch again.
    let epoch = Atomic<UInt32>(0)
    /// The record count, for statistics and reclaim ranking without the lock; 32 bits (a table holds far fewer
    /// records: each costs hundreds of bytes), next to `epoch` so the two share a word and the object stays in a
    /// smaller allocation size.
    private let recordCountMirror = Atomic<UInt32>(0)
    private let useCounter = Atomic<UInt64>(0)
    private let hits = Atomic<Int>(0)
    private let misses = Atomic<Int>(0)
    private let staleHits = Atomic<Int>(0)
    private let networkFetches = Atomic<Int>(0)
    private let deduplicatedJoins = Atomic<Int>(0)
    private let inserts = Atomic<Int>(0)
    private let evictions = Atomic<Int>(0)
    private let expirations = Atomic<Int>(0)
    private let byteCountMirror = Atomic<Int>(0)

    init() {}

    /// Runs `body` with the records, shared with other readers.
    func read<Result, Failure: Error>(
        _ body: (borrowing NormalizedTableState) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        try lock.withReadLock { () throws(Failure) -> Result in
            try body(state)
        }
    }

    /// Runs `body` alone with the records; afterwards the write index follows the record count and sizes are
    /// mirrored for statistics.
    func write<Result>(_ body: (inout NormalizedTableState) -> Result) -> Result {
        lock.withWriteLock {
            let result = body(&state)
            state.settleWriteIndex()
            recordCountMirror.store(UInt32(clamping: state.records.count), ordering: .relaxed)
            byteCountMirror.store(state.byteCount, ordering: .relaxed)
            return result
        }
    }

    /// Evicts least recently used records (roots last) until `bytes` are released or none is left, and counts
    /// them as evictions.
    func evictLeastRecent(releasing bytes: Int, budget: MemoryBudget?) -> RemovalTally {
        let tally = write { state in
            state.evictLeastRecent(
                maxRecords: .max,
                maxBytes: max(0, state.byteCount - bytes),
                sparing: nil,
                budget: budget
            )
        }
        countEvictions(tally.recordKeys.count)
        return tally
    }

    /// A new use tick, later than every tick handed out before: the LRU clock of this table.
    func nextTick() -> UInt64 {
        useCounter.add(1, ordering: .relaxed).newValue
    }

    /// Moves the epoch so that writes that checked the generation before now are refused.
    func advanceEpoch() {
        epoch.wrappingAdd(1, ordering: .sequentiallyConsistent)
    }

    var recordCount: Int {
        Int(recordCountMirror.load(ordering: .relaxed))
    }

    var byteCount: Int {
        byteCountMirror.load(ordering: .relaxed)
    }

    func countRead(_ outcome: ReadOutcome) {
        switch outcome {
        case .hit: hits.add(1, ordering: .relaxed)
        case .staleHit: staleHits.add(1, ordering: .relaxed)
        case .miss: misses.add(1, ordering: .relaxed)
        }
    }

    func countNetworkFetch() {
        networkFetches.add(1, ordering: .relaxed)
    }

    func countDeduplicatedJoin() {
        deduplicatedJoins.add(1, ordering: .relaxed)
    }

    func countInserts(_ count: Int) {
        inserts.add(count, ordering: .relaxed)
    }

    func countEvictions(_ count: Int) {
        evictions.add(count, ordering: .relaxed)
    }

    func countExpirations(_ count: Int) {
        expirations.add(count, ordering: .relaxed)
    }

    var statistics: CacheStatistics {
        CacheStatistics(
            hits: hits.load(ordering: .relaxed),
            misses: misses.load(ordering: .relaxed),
            staleHits: staleHits.load(ordering: .relaxed),
            expirations: expirations.load(ordering: .relaxed),
            evictions: evictions.load(ordering: .relaxed),
            inserts: inserts.load(ordering: .relaxed),
            networkFetches: networkFetches.load(ordering: .relaxed),
            deduplicatedJoins: deduplicatedJoins.load(ordering: .relaxed),
            entryCount: recordCount,
            byteCount: byteCount
        )
    }
}

/// What `ScopedPartitions` keeps per scope: a reference to the scope's table, so the stripe lock is held only
/// to find it.
struct NormalizedPartition: ScopePartition {
    let table = NormalizedRecordTable()

    init() {}

    var statistics: CacheStatistics {
        table.statistics
    }
}
