import CacheCore
import GraphQLLanguage
import Synchronization

/// A record as a partition holds it: a reference, so that a write merges into it in place and a read can mark
/// it as used without the write lock.
///
/// `@unchecked Sendable` is safe because the mutable properties (`typename`, `fields`, `byteCount`, `lastWrite`) are only
/// changed by the owning `NormalizedRecordTable` while it holds its write lock, and only read while it holds
/// its read or write lock (readers reach records only through the table's locked accessors, and snapshots
/// handed out are value copies); `lastUse` is an atomic, which readers may store to concurrently.
final class NormalizedRecord: @unchecked Sendable {
    let key: String
    // Exclusivity is not checked at run time on these two (the checks were a twentieth of a large read): the table's
    // lock already orders every access, as said above, and no access is held across a call that could reach the same
    // record again.
    @exclusivity(unchecked) var typename: String?
    @exclusivity(unchecked) var fields: RecordFields
    var byteCount: Int
    /// The table's use tick of the last read or write that touched the record: the LRU order.
    let lastUse: Atomic<UInt64>
    /// When a response last wrote the record (the latest `writtenAt` of its fields): what a purge by write
    /// time compares. Changed under the write lock only.
    var lastWrite: CacheInstant

    init(
        key: String,
        typename: String?,
        fields: RecordFields,
        byteCount: Int,
        lastUse: UInt64,
        lastWrite: CacheInstant
    ) {
        self.key = key
        self.typename = typename
        self.fields = fields
        self.byteCount = byteCount
        self.lastUse = Atomic(lastUse)
        self.lastWrite = lastWrite
    }

    /// A value copy for callers outside the lock.
    var snapshot: GraphQLRecord {
        GraphQLRecord(key: key, typename: typename, fields: fields.dictionary, byteCount: byteCount)
    }
}

/// What one record of a response contributes to a write, before it is merged into the store.
struct RecordDraft: Sendable {
    var typename: String?
    var fields: RecordFields
    /// What the record would be charged if it were new (`RecordSizing.recordBytes`), kept up to date while the
    /// draft is built so a write knows its size without another pass.
    var bytes: Int

    init(typename: String? = nil, fields: RecordFields = RecordFields(), bytes: Int = 0) {
        self.typename = typename
        self.fields = fields
        self.bytes = bytes
    }

    /// Takes `other`'s typename and fields (the later occurrence in the response wins). When this draft is
    /// still empty, the dictionary is moved instead of re-hashed.
    mutating func absorb(_ other: consuming RecordDraft, key: String, sizing: RecordSizing) {
        if let typename = other.typename {
            self.typename = typename
        }
        if fields.isEmpty {
            fields = other.fields
            bytes = other.bytes
        } else {
            for (position, entry) in other.fields.entries.enumerated() {
                fields.update(entry.field, forKey: entry.key, hint: position)
            }
            bytes = sizing.recordBytes(key: key, fields: fields)
        }
    }
}

/// How many bytes a record is charged: an estimate of the memory it really holds.
struct RecordSizing: Sendable {
    let recordOverhead: Int
    let fieldOverhead: Int

    func recordBytes(key: String, fields: RecordFields) -> Int {
        var total = emptyRecordBytes(key: key)
        for entry in fields.entries {
            total += fieldBytes(entry.key, entry.field.value)
        }
        return total
    }

    func emptyRecordBytes(key: String) -> Int {
        recordOverhead + Self.stringBytes(key)
    }

    func fieldBytes(_ storageKey: String, _ value: GraphQLRecordValue) -> Int {
        fieldOverhead + Self.stringBytes(storageKey) + Self.valueBytes(value)
    }

    /// Heap bytes of a string (see `MemoryBudget.heapBytes(of:)`).
    static func stringBytes(_ string: String) -> Int {
        MemoryBudget.heapBytes(of: string)
    }

    /// Heap bytes beyond the inline enum payload already counted in the field overhead.
    static func valueBytes(_ value: GraphQLRecordValue) -> Int {
        switch value {
        case .scalar(let json):
            return jsonBytes(json)
        case .reference(let key):
            return stringBytes(key)
        case .list(let elements):
            var total = 32 + 24 * elements.count
            for element in elements {
                total += valueBytes(element)
            }
            return total
        }
    }

    static func jsonBytes(_ json: GraphQLJSON) -> Int {
        switch json {
        case .null, .bool, .int, .double:
            return 0
        case .string(let string):
            return stringBytes(string)
        case .array(let elements):
            var total = 32 + 24 * elements.count
            for element in elements {
                total += jsonBytes(element)
            }
            return total
        case .object(let object):
            var total = 64 + 40 * object.count
            for (key, value) in object {
                total += stringBytes(key) + jsonBytes(value)
            }
            return total
        }
    }
}
