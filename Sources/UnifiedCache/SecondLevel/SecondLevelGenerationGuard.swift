import CacheCore
import Synchronization

/// Generations only move forward, as this replica sees them: the defence against someone who can write Redis
/// setting a namespace's generation (or the fleet epoch) back, which would make values a clear dropped — sealed
/// under that older generation and still in Redis until their time-to-live — open again.
///
/// For each namespace it read (at most ``capacity``), the replica remembers the highest generation seen and
/// whether that namespace was cleared since (here, or on another replica over the replication bus). A hit under
/// an older generation, or under the remembered one after a clear, is refused.
///
/// Tokens are parsed strictly: `<epoch>.<generation>`, each a decimal `UInt64` and nothing else. Any other token is
/// `malformed` and one beyond ``plausibleLimit`` is `implausible`: either is refused (never a hit, nothing written
/// under it) and never moves a mark, so a writer who sets a generation to `7.0` for one read, or to a huge number,
/// cannot make the replica forget the generation it trusted. The fleet's next clear of that namespace (or of
/// everything) writes a plausible generation above every one it wrote before (see the Redis store's scripts), and
/// the namespace is read again.
///
/// What remains: a replica that never read the namespace (new, restarted, or past ``capacity`` or
/// ``memory``) cannot tell an older generation from the current one. Values a clear it saw dropped are still
/// refused (``SecondLevelClearMarks``); what it can otherwise be made to serve is that same namespace's own earlier
/// values — the same user's answers to the same requests, still judged for freshness by their own expiry — never
/// another user's.
final class SecondLevelGenerationGuard: Sendable {
    /// Namespaces remembered; past it an arbitrary one is forgotten.
    static let capacity = 65_536
    /// The largest epoch or generation the fleet writes: counts of clears stay far below it, and so does the
    /// recovery value the stores write after an implausible one (milliseconds since 1970, 2⁴⁸ ms is the year 10889).
    static let plausibleLimit: UInt64 = 1 << 48

    /// A token read from the store, as numbers.
    struct Token: Comparable, Sendable {
        var epoch: UInt64
        var generation: UInt64

        static func < (lhs: Token, rhs: Token) -> Bool {
            (lhs.epoch, lhs.generation) < (rhs.epoch, rhs.generation)
        }
    }

    /// What the guard made of a read.
    enum Verdict: Equatable {
        case admitted
        /// A hit under an older generation, or under the remembered one after a clear.
        case rollback
        case malformed
        /// `firstTime`: the first implausible token of this namespace (the front reports it once).
        case implausible(firstTime: Bool)
    }

    private struct Mark {
        var highest: Token
        var clearedSince: Bool
        var seen: ContinuousClock.Instant
    }

    private struct State {
        var marks: [String: Mark] = [:]
        /// Namespaces whose implausible token was reported (bounded like the marks).
        var reported: Set<String> = []
    }

    /// How long a namespace is remembered without reads: the store's longest time-to-live, after which every value
    /// of an older generation has expired (and a store that lost its data recovers).
    let memory: Duration
    private let state = Mutex(State())

    init(memory: Duration) {
        self.memory = memory
    }

    /// Whether a read of `namespace` that returned `generation` may be trusted (``verdict(_:in:isHit:)``).
    func admits(_ generation: SecondLevelGeneration, in namespace: SecondLevelNamespace, isHit: Bool) -> Bool {
        verdict(generation, in: namespace, isHit: isHit) == .admitted
    }

    /// What a read of `namespace` that returned `generation` may be trusted for; remembers it when newer.
    func verdict(_ generation: SecondLevelGeneration, in namespace: SecondLevelNamespace, isHit: Bool) -> Verdict {
        guard let token = Self.token(generation.token) else { return .malformed }
        let now = ContinuousClock.now
        return state.withLock { state in
            guard token.epoch < Self.plausibleLimit, token.generation < Self.plausibleLimit else {
                if state.reported.count >= Self.capacity { state.reported.removeAll() }
                return .implausible(firstTime: state.reported.insert(namespace.name).inserted)
            }
            if let index = state.marks.index(forKey: namespace.name) {
                let mark = state.marks.values[index]
                if now - mark.seen < memory {
                    if token < mark.highest { return isHit ? .rollback : .admitted }
                    if token == mark.highest {
                        state.marks.values[index].seen = now
                        return isHit && mark.clearedSince ? .rollback : .admitted
                    }
                }
            }
            if state.marks.count >= Self.capacity, state.marks[namespace.name] == nil {
                state.marks.remove(at: state.marks.startIndex)
            }
            state.marks[namespace.name] = Mark(highest: token, clearedSince: false, seen: now)
            state.reported.remove(namespace.name)
            return .admitted
        }
    }

    /// `namespace` was cleared (here or by another replica): its remembered generation is no longer current.
    func cleared(_ namespace: SecondLevelNamespace) {
        state.withLock { $0.marks[namespace.name]?.clearedSince = true }
    }

    /// Every namespace was cleared at once (the fleet epoch moved).
    func clearedAll() {
        state.withLock { state in
            for name in state.marks.keys { state.marks[name]?.clearedSince = true }
        }
    }

    /// The highest generation remembered for `namespace` (for tests: a refused token never moves it).
    func highest(in namespace: SecondLevelNamespace) -> Token? {
        state.withLock { $0.marks[namespace.name]?.highest }
    }

    /// `<epoch>.<generation>`, each a canonical decimal `UInt64` (digits only, no leading zero, sign or space); nil
    /// otherwise.
    static func token(_ text: String) -> Token? {
        var text = text
        return text.withUTF8 { bytes -> Token? in
            // A second dot lands in the generation's digits, which refuse it.
            guard let dot = bytes.firstIndex(of: UInt8(ascii: ".")), let epoch = number(bytes[..<dot]),
                let generation = number(bytes[(dot + 1)...])
            else { return nil }
            return Token(epoch: epoch, generation: generation)
        }
    }

    private static func number(_ digits: some Collection<UInt8>) -> UInt64? {
        // Canonical only (what INCR writes): a leading zero would be another text for the same number.
        guard !digits.isEmpty, digits.count <= 20, digits.first != UInt8(ascii: "0") || digits.count == 1 else {
            return nil
        }
        var value: UInt64 = 0
        for digit in digits {
            guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "9") else { return nil }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(UInt64(digit - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else { return nil }
            value = sum
        }
        return value
    }
}
