import Synchronization

/// Lets one eager refresh start per key (scope included) for a given stored entry, however many concurrent hits
/// find that entry past its eager-refresh threshold.
///
/// The gate remembers the write time of the entry a refresh was started for. A hit on that same entry (or an older
/// one) is refused while the refresh runs and after it succeeded, so a hit that read the entry just before the
/// refresh landed does not start a second one; a hit on the refreshed entry (written later) may start the next.
/// A refresh that failed is forgotten, so a later hit may try again.
///
/// Bounded: past ``capacity`` keys, records of refreshes that have ended are forgotten.
public final class EagerRefreshGate<Key: Hashable & Sendable>: Sendable {
    private struct Record {
        var storedAt: CacheInstant
        var isRunning: Bool
    }

    private let records = Mutex<[Key: Record]>([:])
    /// The most keys remembered at once (refreshes in progress are never forgotten).
    public let capacity: Int

    /// - Parameter capacity: the most keys remembered at once (at least 1).
    public init(capacity: Int = 10_000) {
        self.capacity = max(1, capacity)
    }

    /// Refreshes in progress.
    public var runningCount: Int {
        records.withLock { $0.values.count(where: \.isRunning) }
    }

    /// Whether the caller, on a hit on the entry written at `storedAt`, is the one to start its refresh. Call
    /// ``end(_:succeeded:)`` when that refresh ends.
    public func begin(_ key: Key, entryStoredAt storedAt: CacheInstant) -> Bool {
        records.withLock { records in
            if let record = records[key], record.isRunning || record.storedAt >= storedAt {
                return false
            }
            if records[key] == nil, records.count >= capacity {
                records = records.filter(\.value.isRunning)
            }
            records[key] = Record(storedAt: storedAt, isRunning: true)
            return true
        }
    }

    /// The refresh started by ``begin(_:entryStoredAt:)`` ended.
    public func end(_ key: Key, succeeded: Bool) {
        records.withLock { records in
            if succeeded {
                records[key]?.isRunning = false
            } else {
                records[key] = nil
            }
        }
    }
}
