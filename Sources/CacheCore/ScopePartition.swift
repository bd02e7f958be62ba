import Synchronization

/// The per-scope state a `ScopedPartitions` map holds: the entries of one session (or of the shared scope).
///
/// The REST entry store and the GraphQL normalized store keep different partitions but the same scoping,
/// striping and generation rules; this protocol is what the map needs from either.
public protocol ScopePartition: Sendable {
    /// An empty partition, created on first use of a scope.
    init()
    /// Counters and current sizes. When the partition is dropped its counters are kept in the map's process
    /// totals, so `CacheStore.statistics()` still counts sessions that ended.
    var statistics: CacheStatistics { get }
}

/// A scope with its precomputed hash, so the scope string is hashed once per operation: the same value picks
/// the stripe and keys the stripe's dictionary.
@usableFromInline
struct HashedScope: Hashable, Sendable {
    @usableFromInline let scope: CacheScope
    @usableFromInline let hash: Int

    @inlinable
    init(_ scope: CacheScope) {
        self.scope = scope
        self.hash = scope.hashValue
    }

    @inlinable
    static func == (lhs: HashedScope, rhs: HashedScope) -> Bool {
        lhs.hash == rhs.hash && lhs.scope == rhs.scope
    }

    @inlinable
    func hash(into hasher: inout Hasher) {
        hasher.combine(hash)
    }
}

/// A partition with the generation numbers the map keeps for it.
///
/// The partition lives in a box of its own: a map slot is then three words, not the partition's two hundred-odd
/// bytes, and the map's spare capacity (a hash map keeps up to half of its slots free after growing) costs a
/// pointer per free slot rather than a whole partition. With a million sessions per store that is over 100 MB.
@usableFromInline
struct PartitionSlot<Partition: ScopePartition>: Sendable {
    @usableFromInline let box: PartitionBox<Partition>
    /// The number handed out when the partition was created.
    let createdGeneration: UInt64
    /// Equal to `createdGeneration` until the first clear; every clear takes a new number.
    var generation: UInt64

    init(partition: Partition, createdGeneration: UInt64, generation: UInt64) {
        self.box = PartitionBox(partition)
        self.createdGeneration = createdGeneration
        self.generation = generation
    }

    /// The partition, changed in place in its box. The accessor is mutating although it changes only the box: a
    /// change must be a modify access of the slot, so `slots[key, default: …]` inserts the new slot first.
    @inlinable
    var partition: Partition {
        // A read borrows in place: whole-map passes (purges, statistics) read every partition without copying it.
        _read { yield box.partition }
        _modify { yield &box.partition }
    }
}

/// The heap home of one partition.
///
/// `@unchecked Sendable` is sound: a box is reachable only through its slot in a `PartitionStripeState`, which
/// lives behind its stripe's `Mutex`; every read and change of `partition` happens with that lock held, and a
/// partition leaving the map is handed out by value (a copy), never as the box.
@usableFromInline
final class PartitionBox<Partition: ScopePartition>: @unchecked Sendable {
    /// Unchecked: every access is under the stripe's lock (above), so the run-time exclusivity check each access
    /// would otherwise pay, the hit path included, can never fire.
    @usableFromInline @exclusivity(unchecked) var partition: Partition

    init(_ partition: Partition) {
        self.partition = partition
    }
}

/// The state behind one stripe's lock.
@usableFromInline
struct PartitionStripeState<Partition: ScopePartition>: Sendable {
    /// How many recent-drop slots each stripe keeps (see `droppedAt`).
    static var dropSlotCount: Int { 64 }

    @usableFromInline var slots: [HashedScope: PartitionSlot<Partition>] = [:]
    /// The generation number of the latest drop (whole-scope clear, or a clear of a scope without partition) of
    /// any scope hashing to each slot. A token taken without a partition is refused when its slot saw a drop
    /// since: a bounded, tombstone-free record whose only false positives are refused inserts (never stale data).
    var droppedAt = [UInt64](repeating: 0, count: dropSlotCount)
    /// Counters of partitions already dropped from this stripe.
    var retired = CacheStatistics()
}

/// One lock and its state; a class so an array of stripes can hold the non-copyable `Mutex`.
@usableFromInline
final class PartitionStripe<Partition: ScopePartition>: Sendable {
    @usableFromInline let state = Mutex(PartitionStripeState<Partition>())
}
