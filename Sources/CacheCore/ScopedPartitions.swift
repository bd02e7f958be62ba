import Synchronization

/// A map from scope to partition, striped over several locks so that sessions do not contend on one lock.
///
/// Each operation locks exactly one stripe (chosen by the scope's hash) and works on the partition in place.
/// The map also owns the generation rules (see `CacheGeneration`): a partition takes a fresh number from a
/// process-wide counter when it is created and on every clear, and a dropped scope leaves no tombstone.
/// Generic so the GraphQL normalized store can keep its records per scope with the same guarantees.
public final class ScopedPartitions<Partition: ScopePartition>: Sendable {
    @usableFromInline let stripes: [PartitionStripe<Partition>]
    /// Hands out generation numbers; 0 is never handed out and means "no partition".
    private let generationCounter = Atomic<UInt64>(0)
    /// The fallback reclaim's ranking of scopes (see `nextReclaimCandidate()`).
    private let reclaimRanking = Mutex(ReclaimRanking())

    /// - Parameter stripeCount: how many locks share the scopes; more stripes, less contention. At least 1.
    public init(stripeCount: Int) {
        precondition(stripeCount > 0, "ScopedPartitions needs at least one stripe")
        stripes = (0..<stripeCount).map { _ in PartitionStripe() }
    }

    // MARK: - Reading and writing one partition

    /// Runs `body` on the scope's partition, creating an empty one first if the scope has none.
    public func withPartition<Result: Sendable>(
        _ scope: CacheScope,
        _ body: (inout Partition) -> Result
    ) -> Result {
        let key = HashedScope(scope)
        return stripe(for: key).state.withLock { state in
            body(&state.slots[key, default: newSlot()].partition)
        }
    }

    /// Runs `body` on the scope's partition if it has one; `nil` otherwise (nothing is created).
    ///
    /// Inlinable: a store in another module (the GraphQL store's read) then calls it specialised for its own
    /// partition, without looking up the stripe, slot and state types' generic metadata on every read.
    @inlinable
    public func withExistingPartition<Result: Sendable>(
        _ scope: CacheScope,
        _ body: (inout Partition) -> Result
    ) -> Result? {
        let key = HashedScope(scope)
        return stripe(for: key).state.withLock { state -> Result? in
            // One look-up: the slot's index, then the slot in place by it (not the key hashed a second time).
            guard let index = state.slots.index(forKey: key) else {
                return nil
            }
            return body(&state.slots.values[index].partition)
        }
    }

    /// Runs `body` on the scope's partition (creating it if needed) only if no clear happened since `generation`
    /// was taken; `nil` when one did. A `nil` generation always runs.
    public func withPartition<Result: Sendable>(
        _ scope: CacheScope,
        ifGeneration generation: CacheGeneration?,
        _ body: (inout Partition) -> Result
    ) -> Result? {
        let key = HashedScope(scope)
        return stripe(for: key).state.withLock { state -> Result? in
            if let generation, !Self.isCurrent(generation, key: key, in: state) {
                return nil
            }
            return body(&state.slots[key, default: newSlot()].partition)
        }
    }

    /// Runs `body` on the scope's existing partition only if no clear happened since `generation` was taken
    /// (a `nil` generation always runs); never creates a partition.
    public func withExistingPartition<Result: Sendable>(
        _ scope: CacheScope,
        ifGeneration generation: CacheGeneration?,
        _ body: (inout Partition) -> Result
    ) -> PartitionAccess<Result> {
        let key = HashedScope(scope)
        return stripe(for: key).state.withLock { state -> PartitionAccess<Result> in
            if let generation, !Self.isCurrent(generation, key: key, in: state) {
                return .staleGeneration
            }
            guard let index = state.slots.index(forKey: key) else {
                return .noPartition
            }
            return .accessed(body(&state.slots.values[index].partition))
        }
    }

    /// The scope's current generation; take it before starting work whose result will be inserted later.
    public func generation(of scope: CacheScope) -> CacheGeneration {
        let key = HashedScope(scope)
        return stripe(for: key).state.withLock { state in
            let partitionGeneration = state.slots[key]?.generation ?? 0
            return CacheGeneration(
                partitionGeneration: partitionGeneration,
                observedCounter: generationCounter.load(ordering: .sequentiallyConsistent),
                // Per scope this only grows: a clear or drop takes a new, larger number, and so does a partition
                // created after a drop.
                epoch: partitionGeneration != 0 ? partitionGeneration : state.droppedAt[Self.dropSlot(of: key)]
            )
        }
    }

    // MARK: - Clearing

    /// Runs a clear on the scope's partition and moves the scope to a new generation, so results of work that
    /// started before the clear are refused. Without a partition, `body` is not run (`nil`), but the clear is
    /// still recorded so that tokens taken earlier without a partition are refused too.
    public func withPartitionClearing<Result: Sendable>(
        _ scope: CacheScope,
        _ body: (inout Partition) -> Result
    ) -> Result? {
        let key = HashedScope(scope)
        return stripe(for: key).state.withLock { state -> Result? in
            let generation = nextGeneration()
            guard state.slots[key] != nil else {
                state.droppedAt[Self.dropSlot(of: key)] = generation
                return nil
            }
            state.slots[key]!.generation = generation
            return body(&state.slots[key]!.partition)
        }
    }

    /// Removes the scope's partition in constant time and returns it, so the caller releases its memory outside
    /// the lock. The scope's counters stay in the process totals; its generation history is reduced to one slot
    /// of the stripe's recent-drop table.
    public func detach(_ scope: CacheScope) -> Partition? {
        let key = HashedScope(scope)
        return stripe(for: key).state.withLock { state -> Partition? in
            state.droppedAt[Self.dropSlot(of: key)] = nextGeneration()
            guard let slot = state.slots.removeValue(forKey: key) else {
                return nil
            }
            state.retired += slot.partition.statistics.countersOnly
            return slot.partition
        }
    }

    /// Runs `body` on the scope's existing partition, then detaches the partition under the same lock when
    /// `shouldDetach` accepts what `body` left (e.g. a purge that emptied it), with the guarantees of `detach`.
    /// `nil` when the scope has no partition (nothing is run or created).
    public func withExistingPartition<Result: Sendable>(
        _ scope: CacheScope,
        detachingIf shouldDetach: (Partition) -> Bool,
        _ body: (inout Partition) -> Result
    ) -> (result: Result, detached: Partition?)? {
        let key = HashedScope(scope)
        return stripe(for: key).state.withLock { state -> (result: Result, detached: Partition?)? in
            guard state.slots[key] != nil else {
                return nil
            }
            let result = body(&state.slots[key]!.partition)
            guard shouldDetach(state.slots[key]!.partition) else {
                return (result, nil)
            }
            state.droppedAt[Self.dropSlot(of: key)] = nextGeneration()
            let slot = state.slots.removeValue(forKey: key)!
            state.retired += slot.partition.statistics.countersOnly
            return (result, slot.partition)
        }
    }

    /// Removes every partition for which `shouldDrop` returns true (e.g. empty ones) and returns them, with the
    /// same guarantees as `detach`. Locks one stripe at a time.
    public func detachAll(where shouldDrop: (CacheScope, Partition) -> Bool) -> [Partition] {
        var detached: [Partition] = []
        for stripe in stripes {
            let fromStripe = stripe.state.withLock { state -> [Partition] in
                let keys = state.slots.compactMap { key, slot in shouldDrop(key.scope, slot.partition) ? key : nil }
                return keys.compactMap { key -> Partition? in
                    state.droppedAt[Self.dropSlot(of: key)] = nextGeneration()
                    guard let slot = state.slots.removeValue(forKey: key) else {
                        return nil
                    }
                    state.retired += slot.partition.statistics.countersOnly
                    return slot.partition
                }
            }
            detached.append(contentsOf: fromStripe)
        }
        return detached
    }

    // MARK: - Whole-map views

    /// The scopes that have a partition now.
    public var scopes: [CacheScope] {
        stripes.flatMap { stripe in
            stripe.state.withLock { state in state.slots.keys.map(\.scope) }
        }
    }

    /// Visits every partition, one stripe lock at a time; partitions created or dropped meanwhile in other
    /// stripes may or may not be visited.
    public func forEachPartition(_ body: (CacheScope, inout Partition) -> Void) {
        for stripe in stripes {
            stripe.state.withLock { state in
                for key in Array(state.slots.keys) {
                    body(key.scope, &state.slots[key]!.partition)
                }
            }
        }
    }

    /// Counters of every partition ever held (dropped ones included) and sizes of the live ones.
    public func totalStatistics() -> CacheStatistics {
        var total = CacheStatistics()
        for stripe in stripes {
            total += stripe.state.withLock { state in
                state.slots.values.reduce(state.retired) { $0 + $1.partition.statistics }
            }
        }
        return total
    }

    // MARK: - Fallback reclaim

    /// The scope a fallback memory reclaim should evict from next, or `nil` when the current ranking is used up
    /// (call ``rankForReclaim(size:)`` to make a new one).
    ///
    /// A ranking costs one scan of every partition; it is then reused across reclaims until each of its scopes
    /// has given all it had, so sustained memory pressure costs one scan per round over the scopes instead of
    /// one scan (and sort) per reclaim. Scopes that grew since the scan wait for the next ranking.
    public func nextReclaimCandidate() -> CacheScope? {
        reclaimRanking.withLock { ranking in
            ranking.cursor < ranking.scopes.count ? ranking.scopes[ranking.cursor] : nil
        }
    }

    /// Tells the ranking that `scope` has nothing left to give: the next candidate is the following scope.
    public func reclaimDrained(_ scope: CacheScope) {
        reclaimRanking.withLock { ranking in
            if ranking.cursor < ranking.scopes.count, ranking.scopes[ranking.cursor] == scope {
                ranking.cursor += 1
            }
        }
    }

    /// Ranks the scopes holding something, largest `size` first, for ``nextReclaimCandidate()``. One stripe
    /// lock at a time.
    public func rankForReclaim(size: (Partition) -> Int) {
        var sizes: [(scope: CacheScope, bytes: Int)] = []
        forEachPartition { scope, partition in
            let bytes = size(partition)
            if bytes > 0 {
                sizes.append((scope, bytes))
            }
        }
        sizes.sort { $0.bytes > $1.bytes }
        let ranked = sizes.map(\.scope)
        reclaimRanking.withLock { ranking in
            ranking = ReclaimRanking(scopes: ranked, cursor: 0)
        }
    }

    // MARK: - Internals

    @inlinable
    func stripe(for key: HashedScope) -> PartitionStripe<Partition> {
        stripes[Int(UInt(bitPattern: key.hash) % UInt(stripes.count))]
    }

    private func nextGeneration() -> UInt64 {
        generationCounter.add(1, ordering: .sequentiallyConsistent).newValue
    }

    private func newSlot() -> PartitionSlot<Partition> {
        let generation = nextGeneration()
        return PartitionSlot(partition: Partition(), createdGeneration: generation, generation: generation)
    }

    /// Uses other bits of the hash than the stripe choice, so scopes of one stripe spread over the slots.
    private static func dropSlot(of key: HashedScope) -> Int {
        let bits = UInt(bitPattern: key.hash)
        return Int((bits >> 32 ^ bits >> 7) % UInt(PartitionStripeState<Partition>.dropSlotCount))
    }

    /// Whether no clear of the scope happened since `generation` was taken.
    private static func isCurrent(
        _ generation: CacheGeneration,
        key: HashedScope,
        in state: PartitionStripeState<Partition>
    ) -> Bool {
        let droppedSince = state.droppedAt[dropSlot(of: key)] > generation.observedCounter
        guard let slot = state.slots[key] else {
            // The partition the token saw is gone (dropped), or a scope without partition may have been
            // created and dropped meanwhile.
            return generation.partitionGeneration == 0 && !droppedSince
        }
        if generation.partitionGeneration != 0 {
            // Numbers are unique per map: a re-created partition never has the old number.
            return slot.generation == generation.partitionGeneration
        }
        // Taken without a partition: fine if this partition was created later and never cleared, and no earlier
        // partition of the scope was dropped in between.
        return slot.generation == slot.createdGeneration
            && slot.createdGeneration > generation.observedCounter
            && !droppedSince
    }
}

/// Scopes ranked for the fallback reclaim and how far it got.
private struct ReclaimRanking: Sendable {
    var scopes: [CacheScope] = []
    var cursor = 0
}

/// The result of a generation-checked access to an existing partition.
public enum PartitionAccess<Result: Sendable>: Sendable {
    case accessed(Result)
    /// The scope has no partition (and the generation, if any, was still current).
    case noPartition
    /// A clear happened since the generation was taken; nothing was run.
    case staleGeneration
}
