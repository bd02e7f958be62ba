import Dispatch

extension CacheStore {
    /// Drops the whole scope in constant time: the partition is detached under the lock, and a large one is
    /// freed on a background queue, so a logout does not pay for freeing thousands of entries.
    ///
    /// Removes uplifted entries too (this is the logout / session-expiry clear), resets the scope's own
    /// statistics (its counters stay in the process totals) and moves the scope to a new generation. The bytes
    /// are released from the memory budget at once.
    @discardableResult
    public func clear(scope: CacheScope, reason: ClearReason = .manual) -> ClearReport {
        let start = ContinuousClock.now
        let detached = partitions.detach(scope)
        let entries = detached?.entryCount ?? 0
        let bytes = detached?.byteCount ?? 0
        budget?.release(bytes)
        if let detached, entries >= Self.backgroundReleaseThreshold {
            // Freeing 10_000 entries takes milliseconds; the caller's request should not wait for it.
            DispatchQueue.global(qos: .utility).async {
                withExtendedLifetime(detached) {}
            }
        }
        let report = ClearReport(
            scope: scope,
            target: .scope,
            reason: reason,
            entries: entries,
            bytes: bytes,
            keptUplifted: 0,
            duration: .zero
        )
        return finish(report, since: start)
    }

    /// Detached partitions with at least this many entries are freed on a background queue; smaller ones are
    /// cheaper to free in place than to hand over.
    static var backgroundReleaseThreshold: Int { 512 }

    /// Clears the entries of one feature domain (the `domains` of their metadata).
    @discardableResult
    public func clear(
        domain: String,
        in scope: CacheScope,
        includeUplifted: Bool = false,
        reason: ClearReason = .manual
    ) -> ClearReport {
        clear(.domain(domain), in: scope, includeUplifted: includeUplifted, reason: reason)
    }

    /// Clears the entries concerning an account, given by identifier or token (whichever the entries recorded).
    @discardableResult
    public func clear(
        account: String,
        in scope: CacheScope,
        includeUplifted: Bool = false,
        reason: ClearReason = .manual
    ) -> ClearReport {
        clear(.account(account), in: scope, includeUplifted: includeUplifted, reason: reason)
    }

    /// Clears the entries whose key starts with `keyPrefix` (plain `String.hasPrefix`).
    ///
    /// Cost: proportional to the keys removed when the prefix ends on a segment boundary ('.', '/', ':'), e.g.
    /// "cardsExperienceV3" or "cardsExperienceV3.page_1"; a prefix ending inside a segment ("cardsExp") also
    /// scans the distinct segments at that level of the scope's keys (see `KeySegmentIndex`), never other scopes.
    @discardableResult
    public func clear(
        keyPrefix: String,
        in scope: CacheScope,
        includeUplifted: Bool = false,
        reason: ClearReason = .manual
    ) -> ClearReport {
        clear(.keyPrefix(keyPrefix), in: scope, includeUplifted: includeUplifted, reason: reason)
    }

    /// Clears the entries built from a normalized record (their `entityKeys`), e.g. "Account:123".
    @discardableResult
    public func clear(
        entityKey: String,
        in scope: CacheScope,
        includeUplifted: Bool = false,
        reason: ClearReason = .manual
    ) -> ClearReport {
        clear(.entityKey(entityKey), in: scope, includeUplifted: includeUplifted, reason: reason)
    }

    /// Clears only the uplifted entries of the scope.
    @discardableResult
    public func clearUplifted(in scope: CacheScope, reason: ClearReason = .manual) -> ClearReport {
        clear(.uplifted, in: scope, includeUplifted: true, reason: reason)
    }

    /// Clears the entries `predicate` selects. The predicate sees a snapshot and runs outside the store's lock
    /// (it may be slow or call the store); an entry replaced while it ran is kept, since its new value was not
    /// judged. Costs a scan of the scope: prefer the indexed clears.
    @discardableResult
    public func clear(
        in scope: CacheScope,
        includeUplifted: Bool = false,
        reason: ClearReason = .manual,
        where predicate: (String, CacheEntry) -> Bool
    ) -> ClearReport {
        let start = ContinuousClock.now
        let snapshot = partitions.withExistingPartition(scope) { $0.snapshot } ?? []
        var kept = 0
        var selected: [(key: String, sequence: UInt64)] = []
        for stored in snapshot where predicate(stored.key, stored.entry) {
            if stored.entry.metadata.isUplifted, !includeUplifted {
                kept += 1
            } else {
                selected.append((stored.key, stored.sequence))
            }
        }
        let removals = partitions.withPartitionClearing(scope) { partition in
            let removals = partition.remove(matching: selected, budget: budget)
            schedule(scope, &partition)
            return removals
        }
        return finish(
            removals ?? Removals(),
            kept: kept,
            target: .predicate,
            scope: scope,
            reason: reason,
            since: start
        )
    }

    private func clear(
        _ target: ClearTarget,
        in scope: CacheScope,
        includeUplifted: Bool,
        reason: ClearReason
    ) -> ClearReport {
        let start = ContinuousClock.now
        let result = partitions.withPartitionClearing(scope) { partition in
            let result = partition.remove(target, includeUplifted: includeUplifted, budget: budget)
            schedule(scope, &partition)
            return result
        }
        return finish(
            result?.removals ?? Removals(),
            kept: result?.keptUplifted ?? 0,
            target: target,
            scope: scope,
            reason: reason,
            since: start
        )
    }

    /// Reports a granular clear: per-entry events, then the removed values are released, then the report.
    private func finish(
        _ removals: consuming Removals,
        kept: Int,
        target: ClearTarget,
        scope: CacheScope,
        reason: ClearReason,
        since start: ContinuousClock.Instant
    ) -> ClearReport {
        let report = ClearReport(
            scope: scope,
            target: target,
            reason: reason,
            entries: removals.entries.count,
            bytes: removals.bytes,
            keptUplifted: kept,
            duration: .zero
        )
        if let observer {
            emit(removals, in: scope, to: observer)
        }
        _ = consume removals
        return finish(report, since: start)
    }

    private func finish(_ report: ClearReport, since start: ContinuousClock.Instant) -> ClearReport {
        var report = report
        report.duration = ContinuousClock.now - start
        observer?.cacheDidEmit(.cleared(report))
        return report
    }
}
