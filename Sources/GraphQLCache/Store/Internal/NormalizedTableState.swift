import CacheCore
import GraphQLLanguage

/// What removals took away, gathered under the write lock and reported after it.
struct RemovalTally: Sendable {
    var recordKeys: [String] = []
    var fields = 0
    var bytes = 0

    mutating func add(_ record: NormalizedRecord) {
        recordKeys.append(record.key)
        fields += record.fields.count
        bytes += record.byteCount
    }
}

/// The records of one scope and their byte total: plain state, changed only under the table's write lock.
///
/// Every method that changes `byteCount` also charges or releases the process `MemoryBudget`, so the two never
/// drift apart.
struct NormalizedTableState {
    private(set) var records = RecordMap()
    /// Set when the scope's partition was detached (cleared); nothing is written any more. Right after `records`,
    /// so it packs after the map's tag byte instead of taking a word of its own.
    var isDropped = false
    private(set) var byteCount = 0
    /// Every record's last write, plus stale items of earlier writes (skipped when popped, dropped by a rebuild
    /// before they outnumber the records); `nil` while the table holds few records, whose purge scans them
    /// instead: see `NormalizedTableState+Purge`.
    var writeIndex: MinHeap<WriteItem>?
    /// `scheduledAt` in one word: `Int64.max` when unset (an instant 292 years after the clock's origin, taken
    /// for unset if it ever came, only makes the table tell the queue again: the queue ignores a later schedule).
    private var scheduledNanoseconds = Int64.max

    /// The time the store's `ScopeDueQueue` was last asked to visit this table by (it may visit earlier).
    var scheduledAt: CacheInstant? {
        get {
            scheduledNanoseconds == .max ? nil : CacheInstant(nanoseconds: scheduledNanoseconds)
        }
        set {
            scheduledNanoseconds = newValue?.nanoseconds ?? .max
        }
    }

    // MARK: - Writing

    /// Merges a response's drafts; returns the storage keys of changed fields per record (new records list all
    /// their fields). Every record written is marked with `tick` and its write time `now` (indexed for purges).
    mutating func apply(
        _ drafts: [String: RecordDraft],
        tick: UInt64,
        now: CacheInstant,
        sizing: RecordSizing,
        budget: MemoryBudget?
    ) -> (changes: [String: [String]], newRecords: Int) {
        var changes: [String: [String]] = [:]
        changes.reserveCapacity(drafts.count)
        var added = 0
        var newRecords = 0
        for (key, draft) in drafts {
            if let record = records[key] {
                let (changed, delta) = merge(draft, into: record, sizing: sizing)
                record.lastUse.store(tick, ordering: .relaxed)
                record.lastWrite = max(record.lastWrite, now)
                added += delta
                if !changed.isEmpty {
                    changes[key] = changed
                }
            } else {
                let bytes = draft.bytes
                records.insert(
                    NormalizedRecord(
                        key: key,
                        typename: draft.typename,
                        fields: draft.fields,
                        byteCount: bytes,
                        lastUse: tick,
                        lastWrite: now
                    )
                )
                added += bytes
                newRecords += 1
                changes[key] = draft.fields.entries.map(\.key)
            }
            indexWrite(WriteItem(writtenAt: now, key: key))
        }
        byteCount += added
        if added > 0 {
            budget?.charge(added)
        } else if added < 0 {
            budget?.release(-added)
        }
        return (changes, newRecords)
    }

    private func merge(
        _ draft: RecordDraft,
        into record: NormalizedRecord,
        sizing: RecordSizing
    ) -> (changed: [String], byteDelta: Int) {
        var changed: [String] = []
        var delta = 0
        if let typename = draft.typename, record.typename != typename {
            if record.typename != nil {
                changed.append("__typename")
            }
            delta += RecordSizing.stringBytes(typename) - (record.typename.map(RecordSizing.stringBytes) ?? 0)
            record.typename = typename
        }
        for (position, entry) in draft.fields.entries.enumerated() {
            let (storageKey, field) = (entry.key, entry.field)
            let newBytes = sizing.fieldBytes(storageKey, field.value)
            if let old = record.fields.update(field, forKey: storageKey, hint: position) {
                if old.value != field.value {
                    changed.append(storageKey)
                    delta += newBytes - sizing.fieldBytes(storageKey, old.value)
                }
            } else {
                changed.append(storageKey)
                delta += newBytes
            }
        }
        record.byteCount += delta
        return (changed, delta)
    }

    // MARK: - Removing

    mutating func remove(_ key: String, budget: MemoryBudget?) -> NormalizedRecord? {
        guard let record = records.removeValue(forKey: key) else {
            return nil
        }
        byteCount -= record.byteCount
        budget?.release(record.byteCount)
        return record
    }

    /// Removes the records `shouldRemove` selects.
    mutating func removeRecords(
        budget: MemoryBudget?,
        where shouldRemove: (NormalizedRecord) -> Bool
    ) -> RemovalTally {
        var tally = RemovalTally()
        let selected = records.filter(shouldRemove)
        for record in selected {
            if let removed = remove(record.key, budget: budget) {
                tally.add(removed)
            }
        }
        return tally
    }

    /// Removes the fields `shouldRemove` selects from every record it is asked about (`recordKeys`, or all
    /// records when `nil`); records keep existing even when left without fields.
    mutating func removeFields(
        ofRecords recordKeys: [String]?,
        sizing: RecordSizing,
        budget: MemoryBudget?,
        where shouldRemove: (NormalizedRecord, String, GraphQLRecordField) -> Bool
    ) -> RemovalTally {
        var tally = RemovalTally()
        let candidates = recordKeys.map { keys in keys.compactMap { records[$0] } } ?? Array(records)
        for record in candidates {
            let doomed = record.fields.removeAll { shouldRemove(record, $0.key, $0.field) }
            guard !doomed.isEmpty else {
                continue
            }
            var released = 0
            for entry in doomed {
                released += sizing.fieldBytes(entry.key, entry.field.value)
            }
            record.byteCount -= released
            byteCount -= released
            budget?.release(released)
            tally.recordKeys.append(record.key)
            tally.fields += doomed.count
            tally.bytes += released
        }
        return tally
    }

    /// Removes records unreachable from the roots through references.
    mutating func collectGarbage(budget: MemoryBudget?) -> RemovalTally {
        var reachable = Set<String>()
        reachable.reserveCapacity(records.count)
        var pending = [GraphQLRecord.queryRootKey, GraphQLRecord.mutationRootKey, GraphQLRecord.subscriptionRootKey]
        while let key = pending.popLast() {
            guard let record = records[key], reachable.insert(key).inserted else {
                continue
            }
            for entry in record.fields.entries {
                entry.field.value.forEachReference { referenced in
                    if !reachable.contains(referenced) {
                        pending.append(referenced)
                    }
                }
            }
        }
        return removeRecords(budget: budget) { !reachable.contains($0.key) }
    }

    /// Takes every record out (a clear), releasing their bytes.
    mutating func removeAll(budget: MemoryBudget?) -> (records: RecordMap, bytes: Int) {
        let taken = records
        let bytes = byteCount
        records = RecordMap()
        byteCount = 0
        budget?.release(bytes)
        return (taken, bytes)
    }

    // MARK: - Eviction

    /// Evicts least recently used records until at most `maxRecords` records and `maxBytes` bytes remain.
    /// Records marked with `sparedTick` (the write being applied) are kept; root records go last.
    mutating func evictLeastRecent(
        maxRecords: Int,
        maxBytes: Int,
        sparing sparedTick: UInt64?,
        budget: MemoryBudget?
    ) -> RemovalTally {
        guard records.count > maxRecords || byteCount > maxBytes else {
            return RemovalTally()
        }
        var candidates: [(tick: UInt64, isRoot: Bool, key: String)] = []
        candidates.reserveCapacity(records.count)
        for record in records {
            let tick = record.lastUse.load(ordering: .relaxed)
            if tick != sparedTick {
                candidates.append((tick, GraphQLRecord.isRootKey(record.key), record.key))
            }
        }
        candidates.sort { lhs, rhs in
            lhs.isRoot != rhs.isRoot ? !lhs.isRoot : lhs.tick < rhs.tick
        }
        var tally = RemovalTally()
        for candidate in candidates {
            guard records.count > maxRecords || byteCount > maxBytes else {
                break
            }
            if let removed = remove(candidate.key, budget: budget) {
                tally.add(removed)
            }
        }
        return tally
    }
}
