import Foundation
import Synchronization

/// What this replica learned about clears, kept in its own memory where Redis cannot reach it: the instant each
/// namespace, each tag of a namespace, or the whole second level was last cleared — by this replica, or by another
/// one over the sealed, replay-proof replication bus. A value sealed before such a mark is refused (a counted
/// `cleared` rejection, a miss), whatever Redis holds: deleting the tag sets a clear works through, writing a saved
/// value back after the clear, or setting a generation back cannot make it served again.
///
/// **When a value was sealed.** Its stored-at time (inside the AEAD, so no Redis writer can change it) for a value of
/// another replica; for a value this process sealed, its seal counter (in the authenticated header), which orders it
/// against the clear exactly. Another replica's clock may be ahead of this one by up to the fleet's clock-skew
/// allowance, so a value of another replica counts as sealed before a mark unless its stored-at is at least the skew
/// past the mark: a value written just before a clear on a fast clock is refused, and a value written in the skew
/// after a clear is refused too (a miss, never a wrong answer). A mark learned from the bus is dated when it arrived,
/// which is after the clear was issued: the margin only grows.
///
/// **Bounded.** At most ``namespaceCapacity`` namespaces and ``labelsPerNamespace`` tag marks each. A mark is never
/// simply forgotten: a tag mark pushed out is folded into its namespace's mark, a namespace pushed out into the mark
/// of the whole second level, so evicting can only make more values refused, never an older one acceptable.
///
/// Cost of a hit: one lock and a dictionary lookup when the namespace has marks, nothing more when it has none.
final class SecondLevelClearMarks: Sendable {
    static let namespaceCapacity = 65_536
    static let labelsPerNamespace = 64

    /// A clear as this replica dates it: its wall clock, and where its own sealer stood.
    struct Mark: Sendable, Equatable {
        var at: Date
        /// This process's sender id and next seal counter when the mark was set: its own values are ordered by it.
        var sender: [UInt8]
        var counter: UInt64

        /// The later of two marks (it refuses everything the earlier one does).
        func later(_ other: Mark?) -> Mark {
            guard let other else { return self }
            if other.at != at { return other.at > at ? other : self }
            return other.counter > counter ? other : self
        }
    }

    /// When and by whom a value read was sealed.
    struct Seal {
        var storedAt: Date
        var sender: ArraySlice<UInt8>
        var counter: UInt64
    }

    private struct NamespaceMarks {
        var whole: Mark?
        var labels: [SecondLevelNames.Label: Mark] = [:]
        var newest: Date
    }

    private struct State {
        var everything: Mark?
        var namespaces: [String: NamespaceMarks] = [:]
    }

    /// The fleet's clock-skew allowance, in seconds.
    let skew: TimeInterval
    private let state = Mutex(State())

    init(skew: Duration) {
        self.skew = Double(skew.components.seconds) + Double(skew.components.attoseconds) / 1e18
    }

    /// Whether `seal` is before `mark`: exactly by counter for this process's own sender, by time beyond the skew for
    /// another's.
    func isBefore(_ seal: Seal, _ mark: Mark) -> Bool {
        if seal.sender.elementsEqual(mark.sender) { return seal.counter < mark.counter }
        return seal.storedAt < mark.at.addingTimeInterval(skew)
    }

    /// Whether a clear this replica saw dropped the value sealed at `seal` in `namespace`; `carries` says whether the
    /// value is indexed under a label (only labels marked in the namespace are asked).
    func refuses(_ seal: Seal, in namespace: String, carries: (SecondLevelNames.Label) -> Bool) -> Bool {
        state.withLock { state in
            if let everything = state.everything, isBefore(seal, everything) { return true }
            guard let marks = state.namespaces[namespace] else { return false }
            if let whole = marks.whole, isBefore(seal, whole) { return true }
            for (label, mark) in marks.labels where isBefore(seal, mark) && carries(label) { return true }
            return false
        }
    }

    /// Every value of the second level sealed before `mark` is refused.
    func markEverything(_ mark: Mark) {
        state.withLock { $0.everything = mark.later($0.everything) }
    }

    /// Every value of `namespace` sealed before `mark` is refused.
    func markNamespace(_ namespace: String, _ mark: Mark) {
        state.withLock { state in
            update(&state, namespace, at: mark.at) { $0.whole = mark.later($0.whole) }
        }
    }

    /// Every value of `namespace` indexed under one of `labels` and sealed before `mark` is refused.
    func mark(_ labels: Set<SecondLevelNames.Label>, in namespace: String, _ mark: Mark) {
        state.withLock { state in
            update(&state, namespace, at: mark.at) { marks in
                for label in labels { marks.labels[label] = mark.later(marks.labels[label]) }
                while marks.labels.count > Self.labelsPerNamespace {
                    // The oldest tag mark goes into the namespace's: every value it refused stays refused.
                    guard let oldest = marks.labels.min(by: { $0.value.at < $1.value.at }) else { break }
                    marks.labels.removeValue(forKey: oldest.key)
                    marks.whole = oldest.value.later(marks.whole)
                }
            }
        }
    }

    private func update(_ state: inout State, _ namespace: String, at: Date, _ change: (inout NamespaceMarks) -> Void) {
        var marks = state.namespaces.removeValue(forKey: namespace) ?? NamespaceMarks(newest: at)
        marks.newest = max(marks.newest, at)
        change(&marks)
        state.namespaces[namespace] = marks
        guard state.namespaces.count > Self.namespaceCapacity else { return }
        // The least recently marked quarter goes into the mark of everything (sorted once per quarter of inserts).
        let evicted = state.namespaces.sorted { $0.value.newest < $1.value.newest }.prefix(Self.namespaceCapacity / 4)
        for (name, marks) in evicted {
            state.namespaces.removeValue(forKey: name)
            for mark in [marks.whole].compactMap({ $0 }) + Array(marks.labels.values) {
                state.everything = mark.later(state.everything)
            }
        }
    }

    /// The namespaces marked (for tests of the bound).
    var namespaceCount: Int { state.withLock { $0.namespaces.count } }
}
