import Foundation

/// Clears of sessions this replica does not hold, remembered until one of them is created (or found) here.
///
/// A session-scoped clear arriving over the bus names its session only by the keyed session hash, and the second
/// level's namespace of a session can only be computed from the session's identity, which the hash hides. So a
/// replica that does not hold the session when another replica's logout or tag clear arrives cannot put a mark on the
/// namespace yet; it keeps the mark here, under the hash, and moves it into ``SecondLevelClearMarks`` when a session
/// of that hash registers (``take(_:now:)``). From then on, a value of that namespace sealed before the clear is refused
/// even if a Redis writer restored it or set the generation back.
///
/// **Dated on arrival** (by ``SecondLevelFront/clearMark()``), as the marks of clears applied here are: after the
/// clear was issued, so the skew rule of ``SecondLevelClearMarks`` only widens what is refused.
///
/// **Bounded.** At most ``capacity`` sessions and ``labelsPerSession`` tag marks each (more fold into the session's
/// whole-namespace mark). An entry whose newest mark is older than the second level's `maximumTimeToLive` is folded
/// into the mark of everything: every value sealed before it has expired in Redis, so that mark refuses only values
/// a writer kept alive past their time, and costs no legitimate hit. An entry that must go earlier (capacity reached)
/// goes into the ``horizon``: a whole-namespace mark that every session registered afterwards receives. That is
/// finer than the mark of everything and as safe: the session it clears is held by no one here (or the clear would
/// have been applied to it), so only a session registered later can read its namespace; sessions already held and the
/// shared namespace keep their hits. The price is a miss for values sealed before the horizon in sessions that
/// arrive later (a miss storm at worst, never a wrong answer). The horizon, once older than `maximumTimeToLive`,
/// goes into the mark of everything too.
///
/// Not thread-safe: the coordinator keeps it under the lock that guards its session map, so recording a clear for an
/// unknown hash and registering a session under that hash cannot pass each other.
struct PendingClearMarks: Sendable {
    static let defaultCapacity = 65_536
    static let labelsPerSession = SecondLevelClearMarks.labelsPerNamespace

    typealias Mark = SecondLevelClearMarks.Mark
    typealias Label = SecondLevelNames.Label

    /// What a clear removed from a session's namespace.
    enum Clear: Equatable {
        case namespace
        case labels(Set<Label>)
    }

    /// The marks one session's namespace is owed.
    struct Entry: Sendable, Equatable {
        var whole: Mark?
        var labels: [Label: Mark] = [:]

        /// The latest of its marks.
        var newest: Mark? {
            labels.values.reduce(whole) { $1.later($0) }
        }

        mutating func add(_ clear: Clear, _ mark: Mark) {
            switch clear {
            case .namespace:
                whole = mark.later(whole)
            case .labels(let set):
                for label in set { labels[label] = mark.later(labels[label]) }
                while labels.count > PendingClearMarks.labelsPerSession {
                    guard let oldest = labels.min(by: { $0.value.at < $1.value.at }) else { break }
                    labels.removeValue(forKey: oldest.key)
                    whole = oldest.value.later(whole)
                }
            }
        }

        mutating func merge(_ other: Entry) {
            if let mark = other.whole { add(.namespace, mark) }
            for (label, mark) in other.labels { add(.labels([label]), mark) }
        }
    }

    let capacity: Int
    /// How long a mark matters: the second level keeps no value longer.
    let maximumAge: TimeInterval
    private(set) var entries: [String: Entry] = [:]
    /// Entries pushed out by the capacity: owed, as a whole-namespace mark, by every session registered later.
    private(set) var horizon: Mark?
    private var lastSweep: Date?

    init(capacity: Int = Self.defaultCapacity, maximumAge: Duration) {
        self.capacity = max(1, capacity)
        self.maximumAge = Double(maximumAge.components.seconds) + Double(maximumAge.components.attoseconds) / 1e18
    }

    /// Nothing owed: what a registration checks, and all it costs, in the common case.
    var isEmpty: Bool { horizon == nil && entries.isEmpty }

    var count: Int { entries.count }

    /// Remembers `clear` of the session named `hash`, dated `mark`. Returns a mark for the whole second level when
    /// entries aged out (older than ``maximumAge``) were folded into it.
    mutating func record(_ clear: Clear, hash: String, _ mark: Mark) -> Mark? {
        var everything = sweepIfDue(now: mark.at)
        entries[hash, default: Entry()].add(clear, mark)
        guard entries.count > capacity else { return everything }
        everything = fold(sweep(now: mark.at), into: everything)
        guard entries.count > capacity else { return everything }
        // The least recently marked quarter (at least one) goes into the horizon; sorted once per quarter of inserts.
        let excess = max(entries.count - capacity, capacity / 4)
        let evicted = entries.compactMap { key, entry in entry.newest.map { (key, $0) } }
            .sorted { $0.1.at < $1.1.at }.prefix(excess)
        for (key, newest) in evicted {
            entries.removeValue(forKey: key)
            horizon = newest.later(horizon)
        }
        return everything
    }

    /// Removes and returns what a session registered under `hashes` (its name under every key of the ring) is owed,
    /// the horizon included; `everything` is a mark for the whole second level when the horizon aged out.
    mutating func take(_ hashes: [String], now: Date) -> Taken {
        var everything: Mark?
        if let horizon, horizon.at.addingTimeInterval(maximumAge) < now {
            everything = horizon
            self.horizon = nil
        }
        var owed: Entry?
        for hash in hashes {
            guard let entry = entries.removeValue(forKey: hash) else { continue }
            if owed == nil {
                owed = entry
            } else {
                owed?.merge(entry)
            }
        }
        if let horizon {
            owed = owed ?? Entry()
            owed?.add(.namespace, horizon)
        }
        return Taken(owed: owed, everything: everything)
    }

    /// What ``take(_:now:)`` hands over: the session's marks, and a mark for the whole second level.
    struct Taken: Sendable {
        var owed: Entry?
        var everything: Mark?
    }

    private mutating func sweepIfDue(now: Date) -> Mark? {
        if let lastSweep, now.timeIntervalSince(lastSweep) < min(maximumAge, 60) { return nil }
        return sweep(now: now)
    }

    /// Folds every entry (and the horizon) older than ``maximumAge`` into one mark for the whole second level.
    private mutating func sweep(now: Date) -> Mark? {
        lastSweep = now
        let limit = now.addingTimeInterval(-maximumAge)
        var everything: Mark?
        for (key, entry) in entries {
            guard let newest = entry.newest, newest.at < limit else { continue }
            entries.removeValue(forKey: key)
            everything = newest.later(everything)
        }
        if let horizon, horizon.at < limit {
            everything = horizon.later(everything)
            self.horizon = nil
        }
        return everything
    }

    private func fold(_ mark: Mark?, into other: Mark?) -> Mark? {
        guard let mark else { return other }
        return mark.later(other)
    }
}
