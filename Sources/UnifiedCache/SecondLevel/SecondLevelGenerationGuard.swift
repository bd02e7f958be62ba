import CacheCore
import Synchronization

/// Generations only move forward, as this replica sees them: the defence against someone who can write Redis
/// setting a namespace's generation (or the fleet epoch) back, which would make values a clear dropped — sealed
/// under that older generation and still in Redis until their time-to-live — open again.
///
/// For each namespace it read (at most ``capacity``), the replica remembers the highest generation seen and
/// whether that namespace was cleared since (here, or on another replica over the replication bus). A hit under
/// an older generation, or under the remembered one after a clear, is refused. Tokens of the form `<epoch>.<gen>`
/// (the Redis store's) are compared number by number, epoch first; other tokens are not compared.
///
/// What remains: a replica that never read the namespace (new, restarted, or past ``capacity`` or
/// ``memory``) cannot tell an older generation from the current one. What it can then be made to serve is
/// that same namespace's own earlier values — the same user's answers to the same requests, still judged for
/// freshness by their own expiry — never another user's.
final class SecondLevelGenerationGuard: Sendable {
    /// Namespaces remembered; past it an arbitrary one is forgotten.
    static let capacity = 65_536

    private struct Mark {
        var highest: [UInt64]
        var clearedSince: Bool
        var seen: ContinuousClock.Instant
    }

    /// How long a namespace is remembered without reads: the store's longest time-to-live, after which every value
    /// of an older generation has expired (and a store that lost its data recovers).
    let memory: Duration
    private let marks = Mutex<[String: Mark]>([:])

    init(memory: Duration) {
        self.memory = memory
    }

    /// Whether a read of `namespace` that returned `generation` may be trusted; remembers it when newer.
    func admits(_ generation: SecondLevelGeneration, in namespace: SecondLevelNamespace, isHit: Bool) -> Bool {
        guard let counters = Self.counters(generation.token) else { return true }
        let now = ContinuousClock.now
        return marks.withLock { marks in
            if let mark = marks[namespace.name], now - mark.seen < memory {
                if counters.isOlder(than: mark.highest) { return !isHit }
                if counters == mark.highest {
                    marks[namespace.name]?.seen = now
                    return !(isHit && mark.clearedSince)
                }
            }
            if marks.count >= Self.capacity, marks[namespace.name] == nil { marks.remove(at: marks.startIndex) }
            marks[namespace.name] = Mark(highest: counters, clearedSince: false, seen: now)
            return true
        }
    }

    /// `namespace` was cleared (here or by another replica): its remembered generation is no longer current.
    func cleared(_ namespace: SecondLevelNamespace) {
        marks.withLock { $0[namespace.name]?.clearedSince = true }
    }

    /// Every namespace was cleared at once (the fleet epoch moved).
    func clearedAll() {
        marks.withLock { marks in
            for name in marks.keys { marks[name]?.clearedSince = true }
        }
    }

    /// `<epoch>.<gen>` as numbers; nil for any other form.
    static func counters(_ token: String) -> [UInt64]? {
        var counters: [UInt64] = []
        for part in token.split(separator: ".", omittingEmptySubsequences: false) {
            guard let value = UInt64(part) else { return nil }
            counters.append(value)
        }
        return counters.isEmpty ? nil : counters
    }
}

extension Array where Element == UInt64 {
    /// Lexicographic order of equal-length counter lists (epoch first); lists of other lengths are not ordered.
    fileprivate func isOlder(than other: [UInt64]) -> Bool {
        count == other.count && lexicographicallyPrecedes(other)
    }
}
