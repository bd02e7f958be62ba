/// A JSON object that keeps its members in order.
///
/// Order matters for what people see (a response read back from the cache lists fields in the operation's
/// order, as a server would), but not for meaning: two objects with the same members are equal whatever their
/// order. GraphQL objects are small, so a lookup scans the keys; objects with many members also get a hash
/// index. When a key appears twice (which JSON allows but GraphQL never produces), lookups find the first.
public struct GraphQLJSONObject: Sendable {
    /// Member names in order.
    public private(set) var keys: [String]
    /// Member values, parallel to ``keys``.
    public private(set) var values: [GraphQLJSON]
    /// Key → first position, only for objects above `indexThreshold` members.
    private var index: [String: Int]?

    /// Objects with more members than this get a hash index; below it, comparing a few short strings is faster
    /// than hashing one.
    package static var indexThreshold: Int { 16 }

    /// An empty object.
    public init() {
        keys = []
        values = []
    }

    /// An object with the given members in order.
    public init(_ members: some Sequence<(String, GraphQLJSON)>) {
        keys = []
        values = []
        for (key, value) in members {
            keys.append(key)
            values.append(value)
        }
        rebuildIndex()
    }

    /// Takes parallel arrays without copying; the parser's way in.
    package init(keys: [String], values: [GraphQLJSON]) {
        self.keys = keys
        self.values = values
        rebuildIndex()
    }

    /// The number of members.
    public var count: Int {
        keys.count
    }

    /// Whether the object has no members.
    public var isEmpty: Bool {
        keys.isEmpty
    }

    /// The value of the first member called `key`; setting `nil` removes every member called `key`, setting a
    /// value replaces the first one or appends a new member.
    public subscript(key: String) -> GraphQLJSON? {
        get {
            position(of: key).map { values[$0] }
        }
        set {
            if let newValue {
                if let position = position(of: key) {
                    values[position] = newValue
                } else {
                    keys.append(key)
                    values.append(newValue)
                    if index != nil {
                        index![key] = keys.count - 1
                    } else if keys.count > Self.indexThreshold {
                        rebuildIndex()
                    }
                }
            } else if position(of: key) != nil {
                let kept = zip(keys, values).filter { $0.0 != key }
                keys = kept.map(\.0)
                values = kept.map(\.1)
                rebuildIndex()
            }
        }
    }

    /// The position of the first member called `key`.
    package func position(of key: String) -> Int? {
        if let index {
            return index[key]
        }
        for position in keys.indices where keys[position] == key {
            return position
        }
        return nil
    }

    private mutating func rebuildIndex() {
        guard keys.count > Self.indexThreshold else {
            index = nil
            return
        }
        var built: [String: Int] = [:]
        built.reserveCapacity(keys.count)
        for (position, key) in keys.enumerated() where built[key] == nil {
            built[key] = position
        }
        index = built
    }
}

extension GraphQLJSONObject: Sequence {
    /// Walks the members in order.
    public struct Iterator: IteratorProtocol {
        private let object: GraphQLJSONObject
        private var position = 0

        init(_ object: GraphQLJSONObject) {
            self.object = object
        }

        /// The next member, or `nil` after the last.
        public mutating func next() -> (key: String, value: GraphQLJSON)? {
            guard position < object.keys.count else {
                return nil
            }
            defer { position += 1 }
            return (object.keys[position], object.values[position])
        }
    }

    /// Members in order.
    public func makeIterator() -> Iterator {
        Iterator(self)
    }

    /// The number of members, exactly.
    public var underestimatedCount: Int {
        keys.count
    }
}

extension GraphQLJSONObject: Hashable {
    /// Same members, in any order. With duplicate keys the whole member lists are compared as multisets.
    public static func == (lhs: GraphQLJSONObject, rhs: GraphQLJSONObject) -> Bool {
        guard lhs.keys.count == rhs.keys.count else {
            return false
        }
        if lhs.keys == rhs.keys {
            return lhs.values == rhs.values
        }
        var unmatched = Array(rhs.keys.indices)
        for position in lhs.keys.indices {
            let match = unmatched.firstIndex { candidate in
                rhs.keys[candidate] == lhs.keys[position] && rhs.values[candidate] == lhs.values[position]
            }
            guard let match else {
                return false
            }
            unmatched.remove(at: match)
        }
        return true
    }

    /// Order-independent: member hashes are added, so equal objects in different orders hash alike.
    public func hash(into hasher: inout Hasher) {
        var sum = 0
        for position in keys.indices {
            var member = Hasher()
            member.combine(keys[position])
            member.combine(values[position])
            sum &+= member.finalize()
        }
        hasher.combine(keys.count)
        hasher.combine(sum)
    }
}

extension GraphQLJSONObject: ExpressibleByDictionaryLiteral {
    public init(dictionaryLiteral elements: (String, GraphQLJSON)...) {
        self.init(elements)
    }
}

extension GraphQLJSONObject: CustomStringConvertible {
    /// Compact JSON text. Contains the values: do not log it where responses must not appear.
    public var description: String {
        GraphQLJSON.object(self).jsonText()
    }
}
