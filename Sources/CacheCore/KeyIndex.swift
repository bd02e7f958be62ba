/// Finds a partition's entries by key: by a scan of the slab while the partition is small, by a hash table from
/// the first time it holds more than ``scanLimit`` entries.
///
/// Most partitions are a session's, holding one or two entries. A hash table for them costs more than their
/// bookkeeping should (about 130 B of table for one key, per scope), while comparing a few keys is about as
/// quick as hashing one. The table, once built, is kept until the partition is dropped: a partition that grew
/// once is likely to grow again, and keeping it means no partition switches back and forth. The partition's
/// expiry heap and secondary indexes follow the same switch (see ``CachePartition/isIndexed``).
struct KeyIndex: Sendable {
    typealias Handle = LRUList<StoredEntry>.Handle

    /// The most entries a partition finds by scanning; one more builds the hash table.
    static var scanLimit: Int { 8 }

    /// `nil` while the partition is small.
    private var table: [String: Handle]?

    /// Whether keys are found through the hash table (the partition held more than ``scanLimit`` entries once).
    var isHashed: Bool {
        table != nil
    }

    /// Where a key was found: its handle, and its hash-table position when hashed, so removing the key does not
    /// hash it again.
    struct Position {
        let handle: Handle
        fileprivate let slot: Dictionary<String, Handle>.Index?
    }

    /// The handle of `key`'s entry, if stored.
    func handle(for key: String, in entries: LRUList<StoredEntry>) -> Handle? {
        if let table {
            return table[key]
        }
        return entries.handle(ofKey: key)
    }

    func position(of key: String, in entries: LRUList<StoredEntry>) -> Position? {
        guard let table else {
            return entries.handle(ofKey: key).map { Position(handle: $0, slot: nil) }
        }
        return table.index(forKey: key).map { Position(handle: table.values[$0], slot: $0) }
    }

    /// Records a new entry the partition just put in the slab; builds the table once the slab holds more than
    /// ``scanLimit`` entries. Returns whether it built it now (the partition then builds its other indexes).
    mutating func insert(_ key: String, handle: Handle, in entries: LRUList<StoredEntry>) -> Bool {
        if table != nil {
            table![key] = handle
            return false
        }
        guard entries.count > Self.scanLimit else {
            return false
        }
        var built: [String: Handle] = [:]
        built.reserveCapacity(entries.count)
        for stored in entries.handlesFromMostRecent {
            built[entries[stored].key] = stored
        }
        table = built
        return true
    }

    /// Forgets `key`, whose entry the partition takes out of the slab.
    mutating func remove(_ key: String) {
        table?[key] = nil
    }

    /// Forgets the key found at `position`.
    mutating func remove(at position: Position) {
        if let slot = position.slot {
            table!.remove(at: slot)
        }
    }
}

extension LRUList where Element == StoredEntry {
    /// The handle of the entry stored under `key`, found by comparing keys slot by slot: for small slabs.
    func handle(ofKey key: String) -> Handle? {
        for position in nodes.indices where nodes[position].element?.key == key {
            return Handle(index: Int32(position))
        }
        return nil
    }

    /// The keys stored, in slab order.
    var keys: [String] {
        nodes.compactMap { $0.element?.key }
    }
}
