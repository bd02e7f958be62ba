import CacheCore
import GraphQLLanguage

extension GraphQLNormalizedStore {
    /// Removes every record none of whose fields was written at or after `cutoff`, in every scope, and drops the
    /// scopes left without records, so data older than any freshness rule can accept does not linger.
    ///
    /// The caller computes `cutoff` from the longest lifetime its freshness rules can give (now minus that
    /// lifetime, minus any stale grace). Costs what it removes, not what the store holds: each scope keeps its
    /// records' write times in a heap and the store keeps its scopes in a `ScopeDueQueue` by their oldest write,
    /// so the purge visits only the scopes with something older than `cutoff` (``GraphQLPurgeReport/scopesVisited``)
    /// and pops only those records (and stale items of records written again since, which stay).
    ///
    /// Removed records count as `expirations` in the scope's statistics and are reported as
    /// `.evicted(reason: .expired)`. Fields of other records may still reference them: a read reaching one is a
    /// miss, as for any record that is gone. Dropping an empty scope moves it to a new generation, so a write
    /// already in flight for it is refused. Safe to run concurrently with reads, writes, clears and other purges.
    @discardableResult
    public func purgeRecords(writtenBefore cutoff: CacheInstant) -> GraphQLPurgeReport {
        var report = GraphQLPurgeReport(records: 0, bytes: 0, droppedScopes: 0)
        let budget = budget
        // Due: a table whose oldest write is strictly before the cutoff (or an empty one, due at once).
        let through = CacheInstant(nanoseconds: cutoff.nanoseconds == .min ? .min : cutoff.nanoseconds - 1)
        for scope in writeQueue.popDue(through: through) {
            guard let table = table(for: scope) else {
                continue  // cleared since it was scheduled
            }
            report.scopesVisited += 1
            let (tally, isEmpty) = table.write { state -> (RemovalTally, Bool) in
                guard !state.isDropped else {
                    return (RemovalTally(), false)
                }
                let tally = state.removeWritten(before: cutoff, budget: budget)
                // The queue forgot the scope when it was popped: tell it again what is left to wait for.
                state.scheduledAt = nil
                if !state.records.isEmpty, let next = state.takeSchedule() {
                    writeQueue.schedule(scope, at: next)
                }
                return (tally, state.records.isEmpty)
            }
            table.countExpirations(tally.recordKeys.count)
            report.records += tally.recordKeys.count
            report.bytes += tally.bytes
            if isEmpty, drop(scope, ifStillEmpty: table) {
                report.droppedScopes += 1
            }
            emitEvictions(tally, reason: .expired, in: scope)
        }
        return report
    }

    /// Detaches the scope's partition if it still holds `table` and the table is still empty, then refuses
    /// writes in flight (as a clear does) and releases whatever one merged in between. Whether it was dropped.
    private func drop(_ scope: CacheScope, ifStillEmpty table: NormalizedRecordTable) -> Bool {
        let visit = partitions.withExistingPartition(
            scope,
            detachingIf: { $0.table === table && $0.table.recordCount == 0 },
            { _ in }
        )
        guard visit?.detached != nil else {
            return false  // written again, or cleared and re-created, since: the new writes scheduled it
        }
        table.advanceEpoch()
        let budget = budget
        let leftovers = table.write { state in
            state.isDropped = true
            return state.removeAll(budget: budget)
        }
        withExtendedLifetime(leftovers) {}
        return true
    }

    /// Gives a scope its (empty) table, for reads and activity that count statistics before anything was
    /// written. Unless something is written, a purge drops it once its cutoff passes the creation time, like a
    /// record written then: a first query's write, usually moments after its read missed, is not refused
    /// because a purge dropped the scope in between.
    func createTable(for scope: CacheScope) -> NormalizedRecordTable {
        let table = partitions.withPartition(scope) { $0.table }
        let now = clock.now()
        table.write { state in
            if state.records.isEmpty, !state.isDropped, state.scheduledAt == nil {
                state.scheduledAt = now
                writeQueue.schedule(scope, at: now)
            }
        }
        return table
    }
}
