import Synchronization

/// Something holding memory that a `MemoryBudget` can ask to give some back, such as a `CacheStore` or the
/// GraphQL normalized store.
public protocol MemoryReclaimer: AnyObject, Sendable {
    /// Frees about `bytes` (more or less, as entry sizes allow) and returns how many bytes were released.
    /// Called outside the budget's lock; may be called from any thread.
    func reclaim(bytes: Int) -> Int
}

/// A process-wide byte budget shared by every cache in the process.
///
/// Per-scope limits bound one session, but a server with thousands of sessions needs one ceiling for all of
/// them (the server-side counterpart of iOS memory warnings). Stores charge what they hold and release what they
/// drop; when a charge goes over `limit`, the inserting store evicts from the inserting scope first and then asks
/// the registered reclaimers for the rest with `reclaimExcess()`.
public final class MemoryBudget: Sendable {
    private struct Registration: Sendable {
        weak var reclaimer: (any MemoryReclaimer)?
        let identifier: ObjectIdentifier
    }

    /// The ceiling in bytes.
    public let limit: Int
    private let used = Atomic<Int>(0)
    private let registrations = Mutex<[Registration]>([])

    /// - Parameter limit: bytes all caches together may hold; must be positive.
    public init(limit: Int) throws(CacheCoreError) {
        guard limit > 0 else {
            throw CacheCoreError(
                code: .invalidConfiguration,
                message: "MemoryBudget.limit must be positive, got \(limit)"
            )
        }
        self.limit = limit
    }

    /// Bytes charged now.
    public var usedBytes: Int {
        used.load(ordering: .relaxed)
    }

    /// Whether more is charged than the limit allows.
    public var isOverLimit: Bool {
        usedBytes > limit
    }

    /// How many bytes must be released to get back under the limit; 0 when within it.
    public var excessBytes: Int {
        max(0, usedBytes - limit)
    }

    /// Records `bytes` newly held and returns the new total. Never refuses: the caller decides what to evict.
    @discardableResult
    public func charge(_ bytes: Int) -> Int {
        used.add(bytes, ordering: .relaxed).newValue
    }

    /// Records `bytes` no longer held.
    public func release(_ bytes: Int) {
        used.subtract(bytes, ordering: .relaxed)
    }

    /// Adds a reclaimer to ask when the budget is exceeded. Held weakly: a store that goes away drops out.
    public func register(_ reclaimer: any MemoryReclaimer) {
        let identifier = ObjectIdentifier(reclaimer)
        registrations.withLock { registrations in
            registrations.removeAll { $0.reclaimer == nil || $0.identifier == identifier }
            registrations.append(Registration(reclaimer: reclaimer, identifier: identifier))
        }
    }

    public func unregister(_ reclaimer: any MemoryReclaimer) {
        let identifier = ObjectIdentifier(reclaimer)
        registrations.withLock { registrations in
            registrations.removeAll { $0.reclaimer == nil || $0.identifier == identifier }
        }
    }

    /// Asks the reclaimers, in registration order, for the bytes over the limit until the budget fits again.
    /// Returns the bytes they released.
    @discardableResult
    public func reclaimExcess() -> Int {
        let reclaimers = registrations.withLock { registrations in
            registrations.compactMap(\.reclaimer)
        }
        var released = 0
        for reclaimer in reclaimers {
            let excess = excessBytes
            guard excess > 0 else {
                break
            }
            released += reclaimer.reclaim(bytes: excess)
        }
        return released
    }
}
