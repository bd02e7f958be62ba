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
///
/// Each scheduled scope is one item of the queue's heap, moved in place when scheduled earlier (found through an
/// index of 4-byte slots): about 40 bytes per scope, and never more items than scopes (see `ScopeDueHeap`).
public final class ScopeDueQueue: Sendable {
    private let heap = Mutex(ScopeDueHeap())

    /// The time meaning "due at once", for a scope left empty.
    public static let immediately = CacheInstant(nanoseconds: .min)

    public init() {}

    /// Makes `scope` due at `instant` at the latest: ignored when it is already due by then.
    public func schedule(_ scope: CacheScope, at instant: CacheInstant) {
        heap.withLock { $0.schedule(scope, at: instant) }
    }

    /// Removes and returns the scopes due at or before `instant`, earliest first (scopes due at the same instant
    /// in no particular order), each once. Their schedules are gone: the caller visits each and schedules it again
    /// if something is left to wait for.
    public func popDue(through instant: CacheInstant) -> [CacheScope] {
        heap.withLock { heap in
            var due: [CacheScope] = []
            while let scope = heap.popMin(through: instant) {
                due.append(scope)
            }
            heap.compactIfSparse()
            return due
        }
    }

    /// How many scopes are scheduled.
    public var scheduledCount: Int {
        heap.withLock { $0.count }
    }

    /// How many items the queue's heap holds: one per scheduled scope (an earlier schedule moves the scope's item
    /// instead of adding one), so always ``scheduledCount``.
    public var heapCount: Int {
        scheduledCount
    }
}
