/// One entry as the partition keeps it.
struct StoredEntry: Sendable {
    let key: String
    var entry: CacheEntry
    /// Distinguishes this value from a later one under the same key (a replaced entry gets a new number).
    let sequence: UInt64
}

/// The per-scope limits a partition enforces.
struct PartitionLimits: Sendable {
    var maxEntries: Int
    var maxBytes: Int
}

/// What a partition removed during an operation, handed out of the lock so values are freed (and events sent)
/// after it is released.
struct Removals: Sendable {
    var entries: [StoredEntry] = []
    /// Why each entry went: an eviction reason, or `nil` when it was asked for (remove, clear).
    var reasons: [EvictionReason?] = []
    var bytes = 0
    /// The value an insert replaced: freed after the lock like the others, but not reported as removed.
    var replaced: StoredEntry?

    mutating func append(_ stored: StoredEntry, reason: EvictionReason?) {
        entries.append(stored)
        reasons.append(reason)
        bytes += stored.entry.chargedBytes
    }
}

/// The entries of one scope: an LRU slab found by key, byte accounting and, once the scope is not small, the
/// expiry heap and secondary indexes.
///
/// Plain value state, only ever touched under its stripe's lock (see `ScopedPartitions`). Every method that
/// changes `byteCount` also charges or releases the process `MemoryBudget`, so the two cannot drift apart.
///
/// A partition holding at most `KeyIndex.scanLimit` entries (a session's, typically one or two) keeps no index
/// beside its slab: it finds a key, its earliest expiry, its expired entries and a clear's entries by scanning
/// the few entries it has, which costs about what a hash would and saves a few hundred bytes per scope. The first
/// time it holds more, it builds the hash table, expiry heap and secondary indexes (``isIndexed``) and keeps
/// them from then on; every answer is the same either way.
struct CachePartition: ScopePartition {
    private(set) var entries = LRUList<StoredEntry>()
    private(set) var keyIndex = KeyIndex()
    private(set) var byteCount = 0
    private var nextSequence: UInt64 = 0
    /// Counters only; sizes are filled in by `statistics`.
    var counters = PartitionCounters()
    /// Kept while ``isIndexed`` only.
    private var indexes = SecondaryIndexes()
    /// While ``isIndexed``: every expiring entry's expiry, plus stale items of entries since replaced, refreshed
    /// or removed (skipped when popped, and dropped by a rebuild before they outnumber the entries): see
    /// `CachePartition+Expiry`. Empty (no allocation) while the partition is small.
    var expiryIndex = MinHeap<ExpiryItem>()
    /// The time the store's `ScopeDueQueue` was last asked to visit this partition by (it may visit earlier).
    var scheduledAt: CacheInstant?

    init() {}

    var statistics: CacheStatistics {
        var statistics = counters.statistics
        statistics.entryCount = entries.count
        statistics.byteCount = byteCount
        return statistics
    }

    var isEmpty: Bool {
        entries.isEmpty
    }

    /// Entries held.
    var entryCount: Int {
        entries.count
    }

    /// Whether the partition keeps its hash table, expiry heap and secondary indexes: from the first time it held
    /// more than `KeyIndex.scanLimit` entries.
    var isIndexed: Bool {
        keyIndex.isHashed
    }

    // MARK: - Reading

    /// The counting, recency-updating read of the hot path: one hash lookup (or a scan of a few keys), a few link
    /// writes, no allocation.
    mutating func lookup(_ key: String, at now: CacheInstant) -> CacheLookup {
        guard let handle = keyIndex.handle(for: key, in: entries) else {
            counters.add(1, to: .misses)
            return .miss
        }
        entries.moveToMostRecent(handle)
        let entry = entries[handle].entry
        if entry.isFresh(at: now) {
            counters.add(1, to: .hits)
            return .fresh(entry)
        }
        counters.add(1, to: .staleHits)
        return .stale(entry)
    }

    /// A read that changes nothing: no counters, no recency.
    func peek(_ key: String, at now: CacheInstant) -> CacheLookup {
        guard let handle = keyIndex.handle(for: key, in: entries) else {
            return .miss
        }
        let entry = entries[handle].entry
        return entry.isFresh(at: now) ? .fresh(entry) : .stale(entry)
    }

    /// Entries from most to least recently used.
    var snapshot: [StoredEntry] {
        entries.handlesFromMostRecent.map { entries[$0] }
    }

    // MARK: - Writing

    /// Stores `entry` under `key` as the most recent, after making room within the limits, and within the budget
    /// when `evictsForBudget` (no primary reclaimer: this scope pays first). The caller has checked that the
    /// entry alone fits.
    mutating func store(
        _ entry: CacheEntry,
        key: String,
        limits: PartitionLimits,
        budget: MemoryBudget?,
        evictsForBudget: Bool
    ) -> Removals {
        var removals = Removals()
        if let handle = keyIndex.handle(for: key, in: entries) {
            removals.replaced = remove(handle, budget: budget)
        }
        while entries.count >= limits.maxEntries, let victim = entries.leastRecent {
            removals.append(remove(victim, budget: budget), reason: .entryLimit)
        }
        while byteCount + entry.chargedBytes > limits.maxBytes, let victim = entries.leastRecent {
            removals.append(remove(victim, budget: budget), reason: .byteLimit)
        }
        nextSequence += 1
        let handle = entries.insertAsMostRecent(StoredEntry(key: key, entry: entry, sequence: nextSequence))
        if keyIndex.insert(key, handle: handle, in: entries) {
            buildIndexes()
        } else if isIndexed {
            if let horizon = entry.staleHorizon {
                indexExpiry(ExpiryItem(horizon: horizon, key: key, sequence: nextSequence))
            }
            indexes.add(key, metadata: entry.metadata)
        }
        byteCount += entry.chargedBytes
        counters.add(1, to: .inserts)
        if let budget {
            budget.charge(entry.chargedBytes)
            // Over the process budget without a primary reclaimer: this scope pays first, from its least recent
            // end, never with the new entry. With one, the caller asks the budget once the lock is released.
            while evictsForBudget, budget.isOverLimit, let victim = entries.leastRecent, victim != handle {
                removals.append(remove(victim, budget: budget), reason: .memoryBudget)
            }
        }
        counters.add(removals.entries.count, to: .evictions)
        return removals
    }

    /// Applies a revalidation (HTTP 304): same value, new `storedAt`, optionally new timeout and validators.
    mutating func refresh(
        _ key: String,
        update: (inout CacheEntry) -> Void
    ) -> CacheEntry? {
        guard let handle = keyIndex.handle(for: key, in: entries) else {
            return nil
        }
        entries.moveToMostRecent(handle)
        let (entry, sequence) = entries.update(handle) { stored in
            update(&stored.entry)
            return (stored.entry, stored.sequence)
        }
        if isIndexed, let horizon = entry.staleHorizon {
            indexExpiry(ExpiryItem(horizon: horizon, key: key, sequence: sequence))
        }
        return entry
    }

    /// Builds the expiry heap and secondary indexes from the entries held, when the key index turns to hashing.
    private mutating func buildIndexes() {
        rebuildExpiryIndex()
        for handle in entries.handlesFromMostRecent {
            indexes.add(entries[handle].key, metadata: entries[handle].entry.metadata)
        }
    }

    // MARK: - Removing

    mutating func remove(_ key: String, budget: MemoryBudget?) -> StoredEntry? {
        guard let handle = keyIndex.handle(for: key, in: entries) else {
            return nil
        }
        return remove(handle, budget: budget)
    }

    /// Removes the given keys; uplifted entries stay unless `includeUplifted`. Returns what went and how many
    /// uplifted entries were kept.
    mutating func remove(
        keys: [String],
        includeUplifted: Bool,
        budget: MemoryBudget?
    ) -> (removals: Removals, keptUplifted: Int) {
        var removals = Removals()
        var kept = 0
        for key in keys {
            guard let position = keyIndex.position(of: key, in: entries) else {
                continue
            }
            if !includeUplifted, entries[position.handle].entry.metadata.isUplifted {
                kept += 1
                continue
            }
            removals.append(remove(at: position, budget: budget), reason: nil)
        }
        return (removals, kept)
    }

    /// Removes the entries a clear target selects: through the secondary indexes when the partition keeps them,
    /// else by testing each entry.
    mutating func remove(
        _ target: ClearTarget,
        includeUplifted: Bool,
        budget: MemoryBudget?
    ) -> (removals: Removals, keptUplifted: Int) {
        var keys: [String] = []
        if isIndexed {
            if case .keyPrefix = target {
                indexes.buildSegmentsIfNeeded(storedKeys: entries.keys)
            }
            keys = indexes.keys(for: target) { keyIndex.handle(for: $0, in: entries) != nil }
        } else {
            for handle in entries.handlesFromMostRecent {
                let stored = entries[handle]
                if SecondaryIndexes.selects(target, key: stored.key, metadata: stored.entry.metadata) {
                    keys.append(stored.key)
                }
            }
        }
        return remove(keys: keys, includeUplifted: includeUplifted, budget: budget)
    }

    /// Removes the entries whose key and sequence still match (values stored since are newer and stay).
    mutating func remove(
        matching selected: [(key: String, sequence: UInt64)],
        budget: MemoryBudget?
    ) -> Removals {
        var removals = Removals()
        for (key, sequence) in selected {
            guard let handle = keyIndex.handle(for: key, in: entries), entries[handle].sequence == sequence else {
                continue
            }
            removals.append(remove(handle, budget: budget), reason: nil)
        }
        return removals
    }

    mutating func remove(_ handle: LRUList<StoredEntry>.Handle, budget: MemoryBudget?) -> StoredEntry {
        let stored = entries.remove(handle)
        keyIndex.remove(stored.key)
        forget(stored, budget: budget)
        return stored
    }

    /// Removes through a key position already found, saving the second hash of the key.
    private mutating func remove(at position: KeyIndex.Position, budget: MemoryBudget?) -> StoredEntry {
        let stored = entries.remove(position.handle)
        keyIndex.remove(at: position)
        forget(stored, budget: budget)
        return stored
    }

    /// The bookkeeping after an entry left the slab and the key index.
    private mutating func forget(_ stored: StoredEntry, budget: MemoryBudget?) {
        if isIndexed {
            indexes.remove(stored.key, metadata: stored.entry.metadata) { keyIndex.handle(for: $0, in: entries) != nil }
        }
        byteCount -= stored.entry.chargedBytes
        budget?.release(stored.entry.chargedBytes)
    }
}
