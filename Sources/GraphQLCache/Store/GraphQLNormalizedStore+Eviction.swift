import CacheCore
import Dispatch
import GraphQLLanguage

extension GraphQLNormalizedStore {
    // MARK: - Single records and fields (no new generation, like CacheStore.remove)

    /// Removes one record. With `removingReferences`, fields of other records that reference it (directly or
    /// inside a list) are removed too, so queries through them miss cleanly instead of reaching a gone record
    /// (which is a miss as well).
    ///
    /// Answers already in flight may write the record again; use a clear (``removeRecords(matching:in:reason:)``)
    /// when they must not.
    @discardableResult
    public func removeRecord(
        _ key: String,
        removingReferences: Bool = false,
        in scope: CacheScope
    ) -> GraphQLEvictionReport {
        let start = ContinuousClock.now
        guard let table = table(for: scope) else {
            return .empty
        }
        let sizing = sizing
        let budget = budget
        let tally = table.write { state -> RemovalTally in
            var tally = RemovalTally()
            if let record = state.remove(key, budget: budget) {
                tally.add(record)
            }
            if removingReferences {
                let referencing = state.removeFields(ofRecords: nil, sizing: sizing, budget: budget) { _, _, field in
                    field.value.references(key)
                }
                tally.fields += referencing.fields
                tally.bytes += referencing.bytes
            }
            return tally
        }
        emitRemovals(tally, in: scope)
        return report(tally, since: start)
    }

    /// Removes a field (under every argument combination: `balance`, `transactions({"first":20})`) from one
    /// record. The record stays, so other fields keep answering.
    @discardableResult
    public func evictField(_ fieldName: String, ofRecord key: String, in scope: CacheScope) -> GraphQLEvictionReport {
        let start = ContinuousClock.now
        guard let table = table(for: scope) else {
            return .empty
        }
        let sizing = sizing
        let budget = budget
        let tally = table.write { state in
            state.removeFields(ofRecords: [key], sizing: sizing, budget: budget) { _, storageKey, _ in
                Self.storageKey(storageKey, isField: fieldName)
            }
        }
        return report(tally, countingRecords: false, since: start)
    }

    /// Removes records unreachable from the roots (`QUERY_ROOT`, `MUTATION_ROOT`, `SUBSCRIPTION_ROOT`): objects
    /// no cached field leads to any more, e.g. after a list was rewritten without them.
    @discardableResult
    public func collectGarbage(in scope: CacheScope) -> GraphQLEvictionReport {
        let start = ContinuousClock.now
        guard let table = table(for: scope) else {
            return .empty
        }
        let budget = budget
        let tally = table.write { state in state.collectGarbage(budget: budget) }
        emitRemovals(tally, in: scope)
        return report(tally, since: start)
    }

    // MARK: - Clears (the scope moves to a new generation)

    /// Removes every record whose key matches a glob (`User:*`, `Account:10?`, `Transaction:tx-[0-9]*`; see
    /// the syntax below), and moves the scope to a new generation so answers in flight are not stored.
    ///
    /// `*` matches any run of characters, `?` one character, `[abc]`/`[a-z]`/`[!abc]` one from (or not from) a
    /// set, `\` quotes the next character. The whole key must match. Costs a scan of the scope's keys.
    /// - Throws: `invalidPattern` for an unterminated `[` or a trailing backslash; nothing is removed.
    @discardableResult
    public func removeRecords(
        matching pattern: String,
        in scope: CacheScope,
        reason: ClearReason = .manual
    ) throws(GraphQLCacheError) -> GraphQLEvictionReport {
        let glob = try GlobPattern(pattern)
        return clearing(scope, reason: reason, target: .predicate) { state, budget, _ in
            state.removeRecords(budget: budget) { glob.matches($0.key) }
        }
    }

    /// Removes every record of a type (by its stored `__typename`), e.g. all `Transaction`s, with a new
    /// generation. Costs a scan of the scope's records.
    @discardableResult
    public func removeRecords(
        ofTypename typename: String,
        in scope: CacheScope,
        reason: ClearReason = .manual
    ) -> GraphQLEvictionReport {
        clearing(scope, reason: reason, target: .predicate) { state, budget, _ in
            state.removeRecords(budget: budget) { $0.typename == typename }
        }
    }

    /// Removes a field from every record of a type, e.g. `balance` of every `Account` (the schema coordinate
    /// `Account.balance`), with a new generation. Records stay; queries reading the field miss until refetched.
    @discardableResult
    public func evictField(
        _ fieldName: String,
        ofTypename typename: String,
        in scope: CacheScope,
        reason: ClearReason = .manual
    ) -> GraphQLEvictionReport {
        clearing(scope, reason: reason, target: .predicate, countingRecords: false) { state, budget, sizing in
            state.removeFields(ofRecords: nil, sizing: sizing, budget: budget) { record, storageKey, _ in
                record.typename == typename && Self.storageKey(storageKey, isField: fieldName)
            }
        }
    }

    /// ``evictField(_:ofTypename:in:reason:)`` for a schema coordinate such as `Account.balance`.
    /// - Throws: `invalidPattern` when the coordinate is not `Type.field`.
    @discardableResult
    public func evictField(
        coordinate: String,
        in scope: CacheScope,
        reason: ClearReason = .manual
    ) throws(GraphQLCacheError) -> GraphQLEvictionReport {
        let parts = coordinate.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw GraphQLCacheError(
                code: .invalidPattern,
                message: "A schema coordinate is written 'Type.field', such as 'Account.balance'."
            )
        }
        return evictField(String(parts[1]), ofTypename: String(parts[0]), in: scope, reason: reason)
    }

    /// Drops the scope's records in constant time and moves it to a new generation (the logout clear). Large
    /// scopes are freed on a background queue; their bytes are released from the budget at once. A clear of the
    /// shared scope also drops the `PUBLIC` answers kept for sharing between sessions (a hub-wide clear).
    @discardableResult
    public func clear(scope: CacheScope, reason: ClearReason = .manual) -> GraphQLEvictionReport {
        let start = ContinuousClock.now
        if scope == .shared {
            publicResponses.removeAll()
        }
        guard let partition = partitions.detach(scope) else {
            return report(RemovalTally(), since: start)
        }
        partition.table.advanceEpoch()
        let budget = budget
        let (records, bytes) = partition.table.write { state in
            state.isDropped = true
            return state.removeAll(budget: budget)
        }
        let fields = records.count < 512 ? records.reduce(0) { $0 + $1.fields.count } : 0
        if records.count >= 512 {
            // Freeing thousands of records takes milliseconds; the caller's request should not wait for it.
            DispatchQueue.global(qos: .utility).async {
                withExtendedLifetime(records) {}
            }
        }
        let report = GraphQLEvictionReport(
            records: records.count,
            fields: fields,
            bytes: bytes,
            recordKeys: [],
            duration: ContinuousClock.now - start
        )
        emitCleared(report, target: .scope, reason: reason, in: scope)
        return report
    }

    // MARK: - Internals

    /// Runs a removal under the write lock of a scope that moves to a new generation first.
    func clearing(
        _ scope: CacheScope,
        reason: ClearReason,
        target: ClearTarget,
        countingRecords: Bool = true,
        _ body: (inout NormalizedTableState, MemoryBudget?, RecordSizing) -> RemovalTally
    ) -> GraphQLEvictionReport {
        let start = ContinuousClock.now
        let table = partitions.withPartitionClearing(scope) { partition in
            partition.table.advanceEpoch()
            return partition.table
        }
        let budget = budget
        let sizing = sizing
        let tally = table?.write { state in body(&state, budget, sizing) } ?? RemovalTally()
        let report = report(tally, countingRecords: countingRecords, since: start)
        emitCleared(report, target: target, reason: reason, in: scope)
        return report
    }

    /// Whether a storage key belongs to a field: `name` alone or `name(arguments)`.
    static func storageKey(_ storageKey: String, isField name: String) -> Bool {
        guard storageKey.hasPrefix(name) else {
            return false
        }
        let rest = storageKey.utf8.dropFirst(name.utf8.count)
        return rest.isEmpty || rest.first == UInt8(ascii: "(")
    }

    func report(
        _ tally: RemovalTally,
        countingRecords: Bool = true,
        since start: ContinuousClock.Instant
    ) -> GraphQLEvictionReport {
        GraphQLEvictionReport(
            records: countingRecords ? tally.recordKeys.count : 0,
            fields: tally.fields,
            bytes: tally.bytes,
            recordKeys: tally.recordKeys,
            duration: ContinuousClock.now - start
        )
    }

    func emitRemovals(_ tally: RemovalTally, in scope: CacheScope) {
        guard let observer else {
            return
        }
        for key in tally.recordKeys {
            observer.cacheDidEmit(.removed(scope: scope, key: key))
        }
    }

    private func emitCleared(
        _ report: GraphQLEvictionReport,
        target: ClearTarget,
        reason: ClearReason,
        in scope: CacheScope
    ) {
        observer?.cacheDidEmit(
            .cleared(
                ClearReport(
                    scope: scope,
                    target: target,
                    reason: reason,
                    entries: report.records,
                    bytes: report.bytes,
                    keptUplifted: 0,
                    duration: report.duration
                )
            )
        )
    }
}

extension GraphQLNormalizedStore: MemoryReclaimer {
    /// Evicts least recently used records from the scopes holding the most bytes until `bytes` are released.
    ///
    /// The store is a fallback reclaimer of its budget: asked when no primary reclaimer (a session registry
    /// ending whole sessions) freed enough. It takes one scope at a time, largest first, from a ranking made by
    /// one scan of the scopes and reused by later reclaims until every ranked scope was drained (CacheCore's
    /// `ScopedPartitions.nextReclaimCandidate()`), so sustained pressure does not scan and sort every session on
    /// each reclaim. Evictions are emitted after the scope's lock is released.
    ///
    /// The `PUBLIC` answers kept for sharing between sessions go first (expired ones, then the oldest): copies any
    /// session can fetch again, which no session's end would ever free.
    public func reclaim(bytes: Int) -> Int {
        guard bytes > 0 else {
            return 0
        }
        var released = publicResponses.reclaim(bytes: bytes, now: clock.now())
        var rescanned = false
        let budget = budget
        while released < bytes {
            guard let scope = partitions.nextReclaimCandidate() else {
                guard !rescanned else {
                    break
                }
                rescanned = true
                partitions.rankForReclaim { $0.table.byteCount }
                continue
            }
            let wanted = bytes - released
            let tally =
                table(for: scope)?.evictLeastRecent(releasing: wanted, budget: budget) ?? RemovalTally()
            if tally.bytes < wanted {
                partitions.reclaimDrained(scope)
            }
            released += tally.bytes
            emitEvictions(tally, reason: .memoryBudget, in: scope)
        }
        return released
    }
}
