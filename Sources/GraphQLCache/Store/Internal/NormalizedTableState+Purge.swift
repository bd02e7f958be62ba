import CacheCore
import GraphQLLanguage

/// One write of a record in a table's write index.
struct WriteItem: Comparable, Sendable {
    let writtenAt: CacheInstant
    let key: String

    static func < (lhs: WriteItem, rhs: WriteItem) -> Bool {
        lhs.writtenAt < rhs.writtenAt
    }
}

extension NormalizedTableState {
    /// Records a write of `item.key` (under the write lock already held). Items of earlier writes of the same
    /// record stay until popped; when they would outnumber the records, the index is rebuilt from the records'
    /// last writes (paid for by the pushes that made the garbage: O(1) amortized per push).
    mutating func indexWrite(_ item: WriteItem) {
        writeIndex.push(item)
        guard writeIndex.count > 2 * records.count + 32 else {
            return
        }
        writeIndex = MinHeap(unordered: records.values.map { WriteItem(writtenAt: $0.lastWrite, key: $0.key) })
    }

    /// Removes the records last written before `cutoff` (none of their fields written at or after it), oldest
    /// first, by popping the write index: the cost is the items popped, not the records held. Items of records
    /// written again since are skipped (the later write has its own item).
    mutating func removeWritten(before cutoff: CacheInstant, budget: MemoryBudget?) -> RemovalTally {
        var tally = RemovalTally()
        while let item = writeIndex.popMin(if: { $0.writtenAt < cutoff }) {
            guard let record = records[item.key], record.lastWrite < cutoff,
                let removed = remove(item.key, budget: budget)
            else {
                continue
            }
            tally.add(removed)
        }
        return tally
    }

    /// When the store's `ScopeDueQueue` must visit this table, if earlier than it was told before: at once when
    /// the table is empty (so a purge drops it), else at its oldest write. `nil` when the queue already knows.
    mutating func takeSchedule() -> CacheInstant? {
        let wanted = records.isEmpty ? ScopeDueQueue.immediately : writeIndex.min?.writtenAt
        guard let wanted, scheduledAt.map({ wanted < $0 }) ?? true else {
            return nil
        }
        scheduledAt = wanted
        return wanted
    }
}
