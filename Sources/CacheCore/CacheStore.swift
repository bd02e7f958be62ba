/// The scoped, bounded, expiring store under the REST and GraphQL caches.
///
/// Every entry lives in a `CacheScope`; reads never cross scopes. Scopes are spread over `stripeCount` locks, so
/// concurrent sessions rarely contend, and each operation takes exactly one lock. Expired entries are kept and
/// returned as `.stale` until evicted, purged or replaced, because stale data is what stale-while-revalidate,
/// stale-if-error and ETag revalidation are made of. Events go to the observer after locks are released.
///
/// Typical use by a caching layer:
/// ```swift
/// switch store.lookup(key, in: scope) {
/// case .fresh(let entry): return entry.value as! Response
/// case .stale, .miss:
///     let generation = store.generation(of: scope)      // before the upstream call
///     let response = try await fetch()
///     store.insert(response, byteCost: size, key: key, scope: scope, ifGeneration: generation)
/// }
/// ```
public final class CacheStore: Sendable {
    /// The configuration the store was created with; the per-scope limits may have changed since (see
    /// ``currentLimits`` and ``updateLimits(maxEntriesPerScope:maxBytesPerScope:)``).
    public let configuration: Configuration
    /// The store's time source; caching layers read it too, so grace periods and ages agree with the store.
    public let clock: any CacheClock
    /// The process-wide budget this store charges, if any.
    public let budget: MemoryBudget?
    let observer: (any CacheEventObserver)?
    let partitions: ScopedPartitions<CachePartition>
    /// The per-scope limits in force, read with one atomic load each per insert.
    let liveLimits: LiveScopeLimits
    /// The scopes by their earliest expiry (or at once when left empty), so a purge visits only those due.
    let expiryQueue = ScopeDueQueue()

    /// - Parameters:
    ///   - configuration: limits and defaults; validated here.
    ///   - clock: time source for freshness; inject a `ManualCacheClock` in tests.
    ///   - budget: a process-wide byte budget shared with other stores; the store registers itself as one of
    ///     its reclaimers.
    ///   - observer: receives `CacheEvent`s; `nil` (the default) keeps the store silent at no cost.
    public init(
        configuration: Configuration = Configuration(),
        clock: any CacheClock = SystemCacheClock(),
        budget: MemoryBudget? = nil,
        observer: (any CacheEventObserver)? = nil
    ) throws(CacheCoreError) {
        try configuration.validate()
        self.configuration = configuration
        self.clock = clock
        self.budget = budget
        self.observer = observer
        self.partitions = ScopedPartitions(stripeCount: configuration.stripeCount)
        self.liveLimits = LiveScopeLimits(configuration.limits)
        budget?.register(self)
    }

    deinit {
        guard let budget else {
            return
        }
        var held = 0
        partitions.forEachPartition { _, partition in
            held += partition.byteCount
        }
        budget.release(held)
    }

    // MARK: - Reading

    /// Looks `key` up in `scope`, counting a hit, stale hit or miss and marking the entry as recently used.
    ///
    /// The hot path: one lock, one hash lookup per level (scope, key), no allocation. A first lookup gives the
    /// scope its (empty) partition, so its statistics count from the first miss; `purgeExpired` drops scopes
    /// that stay empty.
    public func lookup(_ key: String, in scope: CacheScope) -> CacheLookup {
        let now = clock.now()
        let result = partitions.withPartition(scope) { partition in
            let result = partition.lookup(key, at: now)
            if partition.isEmpty {
                schedule(scope, &partition)  // a scope only looked up is dropped by the next purge
            }
            return result
        }
        if let observer {
            switch result {
            case .fresh:
                observer.cacheDidEmit(.hit(scope: scope, key: key))
            case .stale(let entry):
                observer.cacheDidEmit(.stale(scope: scope, key: key, staleness: entry.staleness(at: now) ?? .zero))
            case .miss:
                observer.cacheDidEmit(.miss(scope: scope, key: key))
            }
        }
        return result
    }

    /// Reads without side effects: no statistics, no recency, no event. For export, debugging and tests.
    public func peek(_ key: String, in scope: CacheScope) -> CacheLookup {
        let now = clock.now()
        return partitions.withExistingPartition(scope) { $0.peek(key, at: now) } ?? .miss
    }

    /// The scope's generation. Take it *before* the upstream call and pass it to `insert` so that an answer
    /// that started before a clear is not stored after it.
    public func generation(of scope: CacheScope) -> CacheGeneration {
        partitions.generation(of: scope)
    }

    // MARK: - Writing

    /// Stores `value` under `key` in `scope`, evicting least recently used entries to stay within the scope's
    /// limits and the memory budget.
    ///
    /// Over the budget, the inserting scope gives up its own least recent entries first, unless the budget has a
    /// ``MemoryReclaimerPriority/primary`` reclaimer; either way the store then calls
    /// ``MemoryBudget/reclaimExcess()`` once its lock is released.
    ///
    /// - Parameters:
    ///   - value: what a hit returns (typically the decoded response).
    ///   - byteCost: the caller's estimate of the value's size (e.g. the response body length).
    ///   - key: the entry's key within the scope.
    ///   - scope: the session's scope, or `.shared`.
    ///   - metadata: timeout, domains, accounts, uplifted flag, validators and entity keys.
    ///   - generation: the scope's generation taken before producing `value`; when a clear happened since,
    ///     nothing is stored (`.rejectedStaleGeneration`).
    /// - Returns: `.stored`, or why not; a refused insert leaves the cache exactly as it was.
    @discardableResult
    public func insert(
        _ value: some Sendable,
        byteCost: Int,
        key: String,
        scope: CacheScope,
        metadata: CacheEntryMetadata = CacheEntryMetadata(),
        ifGeneration generation: CacheGeneration? = nil
    ) -> InsertOutcome {
        let outcome = insertEntry(value, byteCost: byteCost, key: key, scope: scope, metadata: metadata, generation)
        if outcome != .stored, let observer {
            observer.cacheDidEmit(.rejected(scope: scope, key: key, outcome: outcome))
        }
        return outcome
    }

    private func insertEntry(
        _ value: some Sendable,
        byteCost: Int,
        key: String,
        scope: CacheScope,
        metadata: CacheEntryMetadata,
        _ generation: CacheGeneration?
    ) -> InsertOutcome {
        guard byteCost >= 0 else {
            return .rejectedInvalid(.invalidByteCost)
        }
        guard metadata.timeout.isValid else {
            return .rejectedInvalid(.invalidTimeout)
        }
        let (charged, overflow) = byteCost.addingReportingOverflow(
            key.utf8.count + configuration.entryOverhead + metadata.estimatedHeapBytes)
        let limits = liveLimits.current
        guard !overflow, charged <= limits.maxBytes, charged <= budget?.limit ?? .max else {
            return .rejectedTooLarge
        }
        let now = clock.now()
        var resolved = metadata
        resolved.timeout = metadata.timeout.resolved(default: configuration.defaultTimeout)
        let entry = CacheEntry(
            value: value,
            metadata: resolved,
            storedAt: now,
            storedAtDate: clock.wallClockNow(),
            byteCost: byteCost,
            chargedBytes: charged,
            expiresAt: resolved.timeout.lifetime(default: configuration.defaultTimeout).map { now.advanced(by: $0) }
        )
        let evictsForBudget = budget.map { !$0.hasPrimaryReclaimer } ?? false
        let removals = partitions.withPartition(scope, ifGeneration: generation) { partition in
            let removals = partition.store(
                entry,
                key: key,
                limits: limits,
                budget: budget,
                evictsForBudget: evictsForBudget
            )
            schedule(scope, &partition)
            return removals
        }
        guard let removals else {
            return .rejectedStaleGeneration
        }
        if let observer {
            observer.cacheDidEmit(.inserted(scope: scope, key: key, chargedBytes: charged))
            emit(removals, in: scope, to: observer)
        }
        if let budget, budget.isOverLimit {
            // Outside every lock of the store: reclaimers may call back into it (a session registry clears scopes).
            budget.reclaimExcess()
        }
        return .stored
    }

    /// Marks an entry as just revalidated (an HTTP 304): same value, `storedAt` now, and optionally a new timeout
    /// and validators. Does not create entries and does not resurrect cleared ones.
    @discardableResult
    public func refresh(
        key: String,
        scope: CacheScope,
        timeout: Timeout? = nil,
        validators: CacheValidators? = nil,
        ifGeneration generation: CacheGeneration? = nil
    ) -> RefreshOutcome {
        if let timeout, !timeout.isValid {
            return .rejectedInvalid(.invalidTimeout)
        }
        let now = clock.now()
        let date = clock.wallClockNow()
        let defaultTimeout = configuration.defaultTimeout
        let access = partitions.withExistingPartition(scope, ifGeneration: generation) { partition in
            let refreshed = partition.refresh(key) { entry in
                if let timeout {
                    entry.metadata.timeout = timeout.resolved(default: defaultTimeout)
                }
                if let validators {
                    entry.metadata.validators = validators
                }
                entry.storedAt = now
                entry.storedAtDate = date
                entry.expiresAt = entry.metadata.timeout.lifetime(default: defaultTimeout).map { now.advanced(by: $0) }
            }
            schedule(scope, &partition)
            return refreshed
        }
        switch access {
        case .accessed(let entry?):
            return .refreshed(entry)
        case .accessed(nil), .noPartition:
            return .notFound
        case .staleGeneration:
            return .rejectedStaleGeneration
        }
    }

    /// Removes one entry. Returns whether it was there.
    ///
    /// Unlike a clear, this does not move the scope to a new generation: use a clear when answers already in
    /// flight must not be stored afterwards.
    @discardableResult
    public func remove(key: String, scope: CacheScope) -> Bool {
        let removed = partitions.withExistingPartition(scope) { partition in
            let removed = partition.remove(key, budget: budget)
            schedule(scope, &partition)
            return removed
        }
        guard let removed, removed != nil else {
            return false
        }
        observer?.cacheDidEmit(.removed(scope: scope, key: key))
        return true
    }

    // MARK: - Events

    func emit(_ removals: Removals, in scope: CacheScope, to observer: any CacheEventObserver) {
        for (stored, reason) in zip(removals.entries, removals.reasons) {
            if let reason {
                observer.cacheDidEmit(.evicted(scope: scope, key: stored.key, reason: reason))
            } else {
                observer.cacheDidEmit(.removed(scope: scope, key: stored.key))
            }
        }
    }
}

/// What happened to a `CacheStore.refresh` call.
public enum RefreshOutcome: Sendable {
    /// The entry is fresh again; this is its new state.
    case refreshed(CacheEntry)
    /// No entry under that key (it expired out, was evicted or cleared).
    case notFound
    /// The scope was cleared after the generation was taken.
    case rejectedStaleGeneration
    /// The timeout is negative, NaN or infinite.
    case rejectedInvalid(CacheCoreError.Code)
}
