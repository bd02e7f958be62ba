import Synchronization

/// Something holding memory that a `MemoryBudget` can ask to give some back, such as a `CacheStore`, the
/// GraphQL normalized store, or a session registry that ends whole sessions.
public protocol MemoryReclaimer: AnyObject, Sendable {
    /// Frees about `bytes` (more or less, as entry sizes allow) and returns how many bytes were released.
    ///
    /// Called outside the budget's lock and outside every lock of the stores sharing the budget, from whichever
    /// thread went over the limit, so it may call back into the stores (a session registry typically calls
    /// `CacheStore.clear(scope:)`, which releases bytes). The budget never runs two reclaims at once.
    func reclaim(bytes: Int) -> Int
}

/// When a reclaimer is asked, relative to the others of the same budget.
public enum MemoryReclaimerPriority: Sendable {
    /// Asked first, in registration order: typically a process-wide session LRU that ends whole sessions at O(1)
    /// each. While a budget has one, the stores no longer evict from the inserting scope for the budget.
    case primary
    /// Asked when the primary reclaimers freed less than they were asked (or there are none): the stores, which
    /// evict least recently used entries. The budget rotates which fallback it asks first, so no store always
    /// pays for the others.
    case fallback
}

/// A process-wide byte budget shared by every cache in the process.
///
/// Per-scope limits bound one session, but a server with thousands of sessions needs one ceiling for all of
/// them (the server-side counterpart of iOS memory warnings). Stores charge what they hold and release what they
/// drop. When a charge goes over ``limit``, the inserting store calls ``reclaimExcess()`` once its own locks are
/// released; without a ``MemoryReclaimerPriority/primary`` reclaimer it first evicts from the inserting scope,
/// the behaviour of a budget shared by a few stores.
///
/// The limit is soft under concurrency: inserts running while a reclaim is under way may go over it for that
/// long; the reclaim in progress (or the next insert) brings the budget back under it.
public final class MemoryBudget: Sendable {
    private struct Registration: Sendable {
        weak var reclaimer: (any MemoryReclaimer)?
        let identifier: ObjectIdentifier
        let priority: MemoryReclaimerPriority
    }

    private let currentLimit: Atomic<Int>
    private let used = Atomic<Int>(0)
    private let registrations = Mutex<[Registration]>([])
    private let primaryCount = Atomic<Int>(0)
    /// Set while one thread runs the reclaimers; others return at once instead of reclaiming the same excess.
    private let reclaiming = Atomic<Bool>(false)
    /// Which fallback reclaimer is asked first next time.
    private let fallbackRotation = Atomic<UInt>(0)

    /// - Parameter limit: bytes all caches together may hold; must be positive.
    public init(limit: Int) throws(CacheCoreError) {
        try Self.validate(limit)
        currentLimit = Atomic(limit)
    }

    /// The ceiling in bytes; changed with ``updateLimit(_:)``.
    public var limit: Int {
        currentLimit.load(ordering: .relaxed)
    }

    /// Sets a new ceiling. After lowering it, reclaims the excess at once (outside any store lock); raising it
    /// frees nothing.
    /// - Throws: `invalidConfiguration` when `newLimit` is not positive; the limit is then unchanged.
    public func updateLimit(_ newLimit: Int) throws(CacheCoreError) {
        try Self.validate(newLimit)
        let old = currentLimit.exchange(newLimit, ordering: .sequentiallyConsistent)
        if newLimit < old, isOverLimit {
            reclaimExcess()
        }
    }

    /// Bytes charged now.
    public var usedBytes: Int {
        used.load(ordering: .sequentiallyConsistent)
    }

    /// Whether more is charged than the limit allows.
    public var isOverLimit: Bool {
        usedBytes > limit
    }

    /// How many bytes must be released to get back under the limit; 0 when within it.
    public var excessBytes: Int {
        max(0, usedBytes - limit)
    }

    /// Whether a ``MemoryReclaimerPriority/primary`` reclaimer is registered: one atomic load, read by the
    /// stores on every insert to decide whether they evict from the inserting scope for the budget.
    public var hasPrimaryReclaimer: Bool {
        primaryCount.load(ordering: .relaxed) > 0
    }

    /// Records `bytes` newly held and returns the new total. Never refuses: the caller decides what to evict.
    @discardableResult
    public func charge(_ bytes: Int) -> Int {
        used.add(bytes, ordering: .sequentiallyConsistent).newValue
    }

    /// Records `bytes` newly held by something no reclaimer evicts by itself (a session's parts, its timestamps),
    /// then asks the reclaimers for the excess if that went over the limit, so the budget still bounds the process.
    public func chargeAndReclaim(_ bytes: Int) {
        charge(bytes)
        reclaimExcess()
    }

    /// Records `bytes` no longer held.
    public func release(_ bytes: Int) {
        used.subtract(bytes, ordering: .sequentiallyConsistent)
    }

    /// Adds a reclaimer to ask when the budget is exceeded, as a ``MemoryReclaimerPriority/fallback`` unless
    /// told otherwise. Held weakly: a reclaimer that goes away drops out. Registering again changes the priority.
    public func register(_ reclaimer: any MemoryReclaimer, priority: MemoryReclaimerPriority = .fallback) {
        let identifier = ObjectIdentifier(reclaimer)
        registrations.withLock { registrations in
            registrations.removeAll { $0.reclaimer == nil || $0.identifier == identifier }
            registrations.append(Registration(reclaimer: reclaimer, identifier: identifier, priority: priority))
            countPrimaries(registrations)
        }
    }

    /// Removes a reclaimer; the budget no longer asks it.
    public func unregister(_ reclaimer: any MemoryReclaimer) {
        let identifier = ObjectIdentifier(reclaimer)
        registrations.withLock { registrations in
            registrations.removeAll { $0.reclaimer == nil || $0.identifier == identifier }
            countPrimaries(registrations)
        }
    }

    /// Asks the reclaimers for the bytes over the limit until the budget fits again: the primary ones in
    /// registration order, then, when they freed less than they were asked, the fallbacks, starting with a
    /// different one each time. Returns the bytes they released.
    ///
    /// Runs the reclaimers on the calling thread, outside every lock of the budget (and the stores call it
    /// outside theirs). One reclaim runs at a time: a call made while another is under way returns 0 at once,
    /// and the one under way checks the excess again before it finishes, so nothing charged meanwhile is left
    /// over. A reclaimer calling this method from inside `reclaim(bytes:)` gets 0 too.
    @discardableResult
    public func reclaimExcess() -> Int {
        var released = 0
        while isOverLimit {
            guard
                reclaiming.compareExchange(expected: false, desired: true, ordering: .sequentiallyConsistent).exchanged
            else {
                return released
            }
            let freed = askReclaimers()
            released += freed
            reclaiming.store(false, ordering: .sequentiallyConsistent)
            guard freed > 0 else {
                break
            }
        }
        return released
    }

    /// One round over the reclaimers, stopping once the budget fits: the primaries in order, then, only if they
    /// freed less than they were asked, the fallbacks from a rotating start.
    private func askReclaimers() -> Int {
        let (primaries, fallbacks) = registrations.withLock { registrations in
            registrations.removeAll { $0.reclaimer == nil }
            countPrimaries(registrations)
            var primaries: [any MemoryReclaimer] = []
            var fallbacks: [any MemoryReclaimer] = []
            for registration in registrations {
                guard let reclaimer = registration.reclaimer else {
                    continue
                }
                switch registration.priority {
                case .primary: primaries.append(reclaimer)
                case .fallback: fallbacks.append(reclaimer)
                }
            }
            return (primaries, fallbacks)
        }
        var released = 0
        for reclaimer in primaries {
            let excess = excessBytes
            guard excess > 0 else {
                return released
            }
            let freed = reclaimer.reclaim(bytes: excess)
            released += freed
            if freed >= excess {
                // The primary did what it was asked; anything charged meanwhile is for the next round, which
                // asks the primaries again rather than the fallbacks.
                return released
            }
        }
        guard !fallbacks.isEmpty else {
            return released
        }
        let start = Int(fallbackRotation.add(1, ordering: .relaxed).oldValue % UInt(fallbacks.count))
        for reclaimer in fallbacks[start...] + fallbacks[..<start] {
            let excess = excessBytes
            guard excess > 0 else {
                break
            }
            released += reclaimer.reclaim(bytes: excess)
        }
        return released
    }

    private func countPrimaries(_ registrations: [Registration]) {
        let count = registrations.count { $0.priority == .primary && $0.reclaimer != nil }
        primaryCount.store(count, ordering: .relaxed)
    }

    private static func validate(_ limit: Int) throws(CacheCoreError) {
        guard limit > 0 else {
            throw CacheCoreError(
                code: .invalidConfiguration,
                message: "MemoryBudget.limit must be positive, got \(limit)"
            )
        }
    }
}

extension MemoryBudget {
    /// The heap bytes a string holds beyond its inline 16 bytes: none up to 15 UTF-8 bytes (stored inline), else
    /// its bytes plus an object header. The one estimate every charge of the library uses for text.
    public static func heapBytes(of string: String) -> Int {
        let count = string.utf8.count
        return count <= 15 ? 0 : count + 32
    }
}
