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
    /// The handle of the entry stored under `key`, found by comparing keys along the recency list: for small
    /// slabs. Most recent first, so the key just used is found first.
    func handle(ofKey key: String) -> Handle? {
        nodes.withUnsafeBufferPointer { slots in
            var index = mostRecentIndex
            while index != Self.none, let node = slots.baseAddress.map({ $0 + Int(index) }) {
                if Self.key(in: node) == key {
                    return Handle(index: index)
                }
                index = node.pointer(to: \.next)!.pointee
            }
            return nil
        }
    }

    /// The key of a node on the recency list, read in place. Reading `node.pointee.element?.key` would copy the
    /// whole entry first (its value is an existential, copied through its type's witnesses: tens of
    /// nanoseconds per node); this loads only the key. Sound because a node on the list holds an element, and a
    /// single-payload enum such as `Optional` keeps its payload at offset 0 (Swift's stable type layout), so the
    /// `element` field's address is that of a `StoredEntry` for as long as the rebinding lasts.
    private static func key(in node: UnsafePointer<Node>) -> String {
        UnsafeRawPointer(node.pointer(to: \.element)!).withMemoryRebound(to: StoredEntry.self, capacity: 1) {
            $0.pointer(to: \.key)!.pointee
        }
    }

    /// The keys stored, in slab order.
    var keys: [String] {
        nodes.compactMap { $0.element?.key }
    }
}
