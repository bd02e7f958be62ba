/// The fields of one record by storage key, in the order they were first written.
///
/// A record is written and read by the same few selections, so the field a walk wants next is nearly always at
/// the position the selection predicts: a lookup compares one key (a few nanoseconds for the short keys of
/// GraphQL fields) instead of hashing it (tens of nanoseconds), which is most of the cost of reading and writing
/// large responses. Records with many fields (a root with many argument combinations) also get a hash index.
import GraphQLLanguage

struct RecordFields: Sendable {
    struct Entry: Sendable {
        let key: String
        var field: GraphQLRecordField
    }

    private(set) var entries: [Entry] = []
    /// Key → position, only above `indexThreshold` entries.
    private var index: [String: Int]?

    static var indexThreshold: Int { 16 }

    init() {}

    init(minimumCapacity: Int) {
        entries.reserveCapacity(minimumCapacity)
    }

    var count: Int {
        entries.count
    }

    var isEmpty: Bool {
        entries.isEmpty
    }

    /// The position of `key`, trying `hint` first.
    func position(of key: String, hint: Int) -> Int? {
        if hint >= 0, hint < entries.count, entries[hint].key == key {
            return hint
        }
        if let index {
            return index[key]
        }
        for position in entries.indices where entries[position].key == key {
            return position
        }
        return nil
    }

    /// The field stored under `key`, trying position `hint` first.
    func field(_ key: String, hint: Int) -> GraphQLRecordField? {
        position(of: key, hint: hint).map { entries[$0].field }
    }

    /// The JSON stored under `key` (trying position `hint` first) when it answers a leaf: a scalar, or an empty list
    /// where the selection has no sub-selection; `nil` when absent or not a leaf.
    func leaf(_ key: String, hint: Int, selectsChildren: Bool) -> GraphQLJSON? {
        guard let position = position(of: key, hint: hint) else {
            return nil
        }
        return leaf(at: position, selectsChildren: selectsChildren)
    }

    /// ``leaf(_:hint:selectsChildren:)`` for a field known to be at `position`.
    func leaf(at position: Int, selectsChildren: Bool) -> GraphQLJSON? {
        switch entries[position].field.value {
        case .scalar(let json):
            return json
        case .list(let elements):
            return !selectsChildren && elements.isEmpty ? .array([]) : nil
        case .reference:
            return nil
        }
    }

    subscript(key: String) -> GraphQLRecordField? {
        field(key, hint: -1)
    }

    /// Adds a field the caller knows is not there yet.
    mutating func append(_ key: String, _ field: GraphQLRecordField) {
        entries.append(Entry(key: key, field: field))
        if index != nil {
            index![key] = entries.count - 1
        } else if entries.count > Self.indexThreshold {
            rebuildIndex()
        }
    }

    /// Stores `field` under `key` and returns what it replaced.
    @discardableResult
    mutating func update(_ field: GraphQLRecordField, forKey key: String, hint: Int) -> GraphQLRecordField? {
        guard let position = position(of: key, hint: hint) else {
            append(key, field)
            return nil
        }
        let old = entries[position].field
        entries[position].field = field
        return old
    }

    /// Removes the entries `shouldRemove` selects and returns them.
    mutating func removeAll(where shouldRemove: (Entry) -> Bool) -> [Entry] {
        let removed = entries.filter(shouldRemove)
        guard !removed.isEmpty else {
            return []
        }
        entries.removeAll(where: shouldRemove)
        rebuildIndex()
        return removed
    }

    /// The fields as a dictionary, for snapshots.
    var dictionary: [String: GraphQLRecordField] {
        Dictionary(entries.map { ($0.key, $0.field) }, uniquingKeysWith: { _, later in later })
    }

    private mutating func rebuildIndex() {
        guard entries.count > Self.indexThreshold else {
            index = nil
            return
        }
        var built: [String: Int] = [:]
        built.reserveCapacity(entries.count)
        for (position, entry) in entries.enumerated() {
            built[entry.key] = position
        }
        index = built
    }
}
