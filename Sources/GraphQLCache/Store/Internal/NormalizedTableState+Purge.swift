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
    /// Keeps a write index exactly while the records sit in a dictionary (past `RecordMap.arrayLimit`, until they
    /// fall to half of it: the gap keeps a table that hovers around the limit from rebuilding on every write).
    /// Below, a purge or a schedule scans the few records' `lastWrite` (as cheap as popping a heap at that size),
    /// and the table allocates no heap for them: most session scopes hold a handful of records. Called after every
    /// change, under the write lock.
    mutating func settleWriteIndex() {
        if records.isHashed {
            if writeIndex == nil { writeIndex = latestWrites() }
        } else {
            writeIndex = nil
        }
    }

    /// Records a write of `item.key` in the write index, if the table keeps one (under the write lock already
    /// held). Items of earlier writes of the same record stay until popped; when they would outnumber the records,
    /// the index is rebuilt from the records' last writes (paid for by the pushes that made the garbage: O(1)
    /// amortized per push).
    mutating func indexWrite(_ item: WriteItem) {
        guard writeIndex != nil else {
            return
        }
        writeIndex?.push(item)
        guard let count = writeIndex?.count, count > 2 * records.count + 8 else {
            return
        }
        writeIndex = latestWrites()
    }

    /// Removes the records last written before `cutoff` (none of their fields written at or after it), oldest
    /// first. With a write index, by popping it: the cost is the items popped, not the records held (items of
    /// records written again since are skipped: the later write has its own item). Without one, by scanning the
    /// table's few records.
    mutating func removeWritten(before cutoff: CacheInstant, budget: MemoryBudget?) -> RemovalTally {
        var tally = RemovalTally()
        guard writeIndex != nil else {
            let old = records.filter { $0.lastWrite < cutoff }.sorted { $0.lastWrite < $1.lastWrite }
            for record in old {
                if let removed = remove(record.key, budget: budget) {
                    tally.add(removed)
                }
            }
            return tally
        }
        while let item = writeIndex?.popMin(if: { $0.writtenAt < cutoff }) {
            guard let record = records[item.key], record.lastWrite < cutoff,
                let removed = remove(item.key, budget: budget)
            else {
                continue
            }
            tally.add(removed)
        }
        return tally
    }

    /// A write index of every record's last write, nothing stale.
    private func latestWrites() -> MinHeap<WriteItem> {
        MinHeap(unordered: records.map { WriteItem(writtenAt: $0.lastWrite, key: $0.key) })
    }

    /// The earliest last write of the table's records (`nil` when it holds none); with a write index, its
    /// earliest item, which may be earlier (a stale item): a purge then visits early and finds less to remove.
    var oldestWrite: CacheInstant? {
        guard let writeIndex else {
            return records.lazy.map(\.lastWrite).min()
        }
        return writeIndex.min?.writtenAt
    }

    /// When the store's `ScopeDueQueue` must visit this table, if earlier than it was told before: at once when
    /// the table is empty (so a purge drops it), else at its oldest write. `nil` when the queue already knows.
    mutating func takeSchedule() -> CacheInstant? {
        let wanted = records.isEmpty ? ScopeDueQueue.immediately : oldestWrite
        guard let wanted, scheduledAt.map({ wanted < $0 }) ?? true else {
            return nil
        }
        scheduledAt = wanted
        return wanted
    }
}
