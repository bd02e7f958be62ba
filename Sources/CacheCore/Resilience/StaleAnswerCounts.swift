import Synchronization

/// How many answers each resilience option decided, per ``CacheStaleReason``: a door counts here as it answers, and
/// the hub exports the counts as `ucache_stale_answers_total{part, reason}`. Lock-free; one relaxed increment per
/// such answer, nothing on an ordinary hit.
public final class StaleAnswerCounts: Sendable {
    private let failSafe = Atomic<Int>(0)
    private let softTimeout = Atomic<Int>(0)
    private let eagerRefresh = Atomic<Int>(0)

    public init() {}

    /// Counts one answer decided by `reason`.
    public func record(_ reason: CacheStaleReason) {
        switch reason {
        case .failSafe: failSafe.add(1, ordering: .relaxed)
        case .softTimeout: softTimeout.add(1, ordering: .relaxed)
        case .eagerRefresh: eagerRefresh.add(1, ordering: .relaxed)
        }
    }

    /// The answers counted for `reason` so far.
    public func count(_ reason: CacheStaleReason) -> Int {
        switch reason {
        case .failSafe: return failSafe.load(ordering: .relaxed)
        case .softTimeout: return softTimeout.load(ordering: .relaxed)
        case .eagerRefresh: return eagerRefresh.load(ordering: .relaxed)
        }
    }

    /// Every reason with its count, in the order `CacheStaleReason.allCases` lists them.
    public var counts: [(reason: CacheStaleReason, count: Int)] {
        CacheStaleReason.allCases.map { ($0, count($0)) }
    }
}
