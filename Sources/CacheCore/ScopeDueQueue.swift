import Synchronization

/// The scopes of a store ordered by when each next needs a purge's attention: its earliest expiry (REST entries),
/// its oldest write (GraphQL records), or at once when it was left empty and should be dropped.
///
/// A purge pops the scopes that are due and visits only those, so scopes with nothing due are never scanned. A
/// scope is scheduled once (later schedules at a later time are ignored, earlier ones move it forward), so a
/// store calls ``schedule(_:at:)`` only when a scope's earliest time moves earlier, not on every insert. One
/// lock for the queue: a scope is scheduled when it first gets something to expire and after each purge visit,
/// not per operation. The queue's lock is a leaf: it may be taken while a store's stripe or table lock is held,
/// and nothing else is locked while it is held.
public final class ScopeDueQueue: Sendable {
    private struct Item: Comparable, Sendable {
        let instant: CacheInstant
        let token: UInt64
        let scope: CacheScope

        static func < (lhs: Item, rhs: Item) -> Bool {
            lhs.instant != rhs.instant ? lhs.instant < rhs.instant : lhs.token < rhs.token
        }

        static func == (lhs: Item, rhs: Item) -> Bool {
            lhs.token == rhs.token
        }
    }

    private struct State: Sendable {
        var heap = MinHeap<Item>()
        /// The live schedule of each scope; heap items whose token is not here any more are skipped.
        var scheduled: [CacheScope: (instant: CacheInstant, token: UInt64)] = [:]
        var nextToken: UInt64 = 0
    }

    private let state = Mutex(State())

    /// The time meaning "due at once", for a scope left empty.
    public static let immediately = CacheInstant(nanoseconds: .min)

    public init() {}

    /// Makes `scope` due at `instant` at the latest: ignored when it is already due by then.
    public func schedule(_ scope: CacheScope, at instant: CacheInstant) {
        state.withLock { state in
            if let current = state.scheduled[scope], current.instant <= instant {
                return
            }
            state.nextToken += 1
            state.scheduled[scope] = (instant, state.nextToken)
            state.heap.push(Item(instant: instant, token: state.nextToken, scope: scope))
            // Moved-forward schedules leave their old items behind; rebuild before they outnumber the live ones.
            if state.heap.count > 2 * state.scheduled.count + 64 {
                state.heap = MinHeap(
                    unordered: state.scheduled.map {
                        Item(instant: $0.value.instant, token: $0.value.token, scope: $0.key)
                    }
                )
            }
        }
    }

    /// Removes and returns the scopes due at or before `instant`, earliest first. Their schedules are gone: the
    /// caller visits each and schedules it again if something is left to wait for.
    public func popDue(through instant: CacheInstant) -> [CacheScope] {
        state.withLock { state in
            var due: [CacheScope] = []
            while let item = state.heap.popMin(if: { $0.instant <= instant }) {
                guard state.scheduled[item.scope]?.token == item.token else {
                    continue
                }
                state.scheduled[item.scope] = nil
                due.append(item.scope)
            }
            return due
        }
    }

    /// How many scopes are scheduled.
    public var scheduledCount: Int {
        state.withLock { $0.scheduled.count }
    }

    /// How many items the queue's heap holds, stale ones included (at most about twice ``scheduledCount``).
    public var heapCount: Int {
        state.withLock { $0.heap.count }
    }
}
