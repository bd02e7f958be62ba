extension CurlHTTPClient {
    /// HTTP header fields in order, with case-insensitive lookup and repeated names kept.
    ///
    /// Kept as an ordered list because HTTP allows repeated fields (`Set-Cookie`, `Vary`) whose
    /// order matters, and because small lists beat dictionaries for the few headers a request carries.
    public struct Headers: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
        /// Fields as given, or a response's header block as received, read by name without making every string.
        private enum Storage: Sendable {
            case fields([(name: String, value: String)])
            case received(ReceivedHeaderBlock)
        }

        private var storage: Storage

        /// The fields in the order they were added or received.
        ///
        /// For a received response this makes every name and value; reading a few fields by name through the
        /// subscript or ``values(for:)`` makes only the values asked for.
        public var fields: [(name: String, value: String)] {
            switch storage {
            case .fields(let fields): return fields
            case .received(let block): return block.fields()
            }
        }

        /// Creates headers from name/value pairs, keeping order and repeats.
        public init(_ fields: [(name: String, value: String)] = []) {
            storage = .fields(fields)
        }

        public init(dictionaryLiteral elements: (String, String)...) {
            storage = .fields(elements.map { (name: $0.0, value: $0.1) })
        }

        /// The header block of a response, parsed when read.
        init(received block: ReceivedHeaderBlock) {
            storage = .received(block)
        }

        /// The first value of the field, ignoring the case of the name.
        public subscript(name: String) -> String? {
            switch storage {
            case .fields(let fields): return fields.first { $0.name.equalsIgnoringASCIICase(name) }?.value
            case .received(let block): return block.firstValue(of: name)
            }
        }

        /// Every value of the field, in order, ignoring the case of the name.
        public func values(for name: String) -> [String] {
            switch storage {
            case .fields(let fields): return fields.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value)
            case .received(let block): return block.values(of: name)
            }
        }

        /// Whether a field with this name is present.
        public func contains(_ name: String) -> Bool {
            switch storage {
            case .fields(let fields): return fields.contains { $0.name.equalsIgnoringASCIICase(name) }
            case .received(let block): return block.contains(name)
            }
        }

        /// Appends a field, keeping fields of the same name.
        public mutating func add(name: String, value: String) {
            withFields { $0.append((name: name, value: value)) }
        }

        /// Replaces every field of this name by one field.
        public mutating func replaceOrAdd(name: String, value: String) {
            withFields { fields in
                fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
                fields.append((name: name, value: value))
            }
        }

        /// Removes every field of this name.
        public mutating func remove(name: String) {
            withFields { fields in fields.removeAll { $0.name.equalsIgnoringASCIICase(name) } }
        }

        /// The number of fields, repeats included.
        public var count: Int {
            switch storage {
            case .fields(let fields): return fields.count
            case .received(let block): return block.count
            }
        }

        public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
            fields.makeIterator()
        }

        public static func == (lhs: Headers, rhs: Headers) -> Bool {
            switch (lhs.storage, rhs.storage) {
            case (.fields(let left), .fields(let right)):
                // The same array storage (a session asked for again with the credentials it holds): equal without
                // comparing every name and value.
                if Self.shareStorage(left, right) { return true }
                return Self.fieldsEqual(left, right)
            case (.received(let left), .received(let right)):
                if left.bytes == right.bytes { return true }
            default:
                break
            }
            return lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
        }

        /// Name by name and value by value, in place: no copy of either list and no iterator (a session asked for
        /// with fresh credentials of the same token compares them on every request).
        private static func fieldsEqual(
            _ left: [(name: String, value: String)], _ right: [(name: String, value: String)]
        ) -> Bool {
            guard left.count == right.count else { return false }
            for index in left.indices {
                guard left[index].name == right[index].name, left[index].value == right[index].value else {
                    return false
                }
            }
            return true
        }

        /// Whether two field lists are one array storage (then equal), without touching their elements.
        private static func shareStorage(
            _ left: [(name: String, value: String)], _ right: [(name: String, value: String)]
        ) -> Bool {
            left.count == right.count
                && left.withUnsafeBufferPointer { leftBuffer in
                    right.withUnsafeBufferPointer { $0.baseAddress == leftBuffer.baseAddress }
                }
        }

        /// Names only: header values may carry credentials and are never printed.
        public var description: String {
            "Headers(\(fields.map(\.name).joined(separator: ", ")))"
        }

        /// Mutates the fields in place: a received block becomes fields first, and the storage lets go of its array
        /// meanwhile, so appending does not copy it.
        private mutating func withFields(_ body: (inout [(name: String, value: String)]) -> Void) {
            var fields: [(name: String, value: String)]
            switch storage {
            case .fields(let existing): fields = existing
            case .received(let block): fields = block.fields()
            }
            storage = .fields([])
            body(&fields)
            storage = .fields(fields)
        }
    }
}

extension String {
    /// ASCII case-insensitive comparison without allocating, as header names are ASCII tokens.
    func equalsIgnoringASCIICase(_ other: String) -> Bool {
        let lhs = self.utf8
        let rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        for (a, b) in zip(lhs, rhs) where a != b {
            if a.lowercasedASCII != b.lowercasedASCII { return false }
        }
        return true
    }
}

extension UInt8 {
    /// The byte with ASCII `A`–`Z` lowered: HTTP names, schemes and header names compare without regard to case.
    var lowercasedASCII: UInt8 { (65...90).contains(self) ? self | 0x20 : self }
}
