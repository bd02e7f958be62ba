extension CurlHTTPClient {
    /// HTTP header fields in order, with case-insensitive lookup and repeated names kept.
    ///
    /// Kept as an ordered list because HTTP allows repeated fields (`Set-Cookie`, `Vary`) whose
    /// order matters, and because small lists beat dictionaries for the few headers a request carries.
    public struct Headers: Sendable, Equatable, Sequence, ExpressibleByDictionaryLiteral, CustomStringConvertible {
        /// The fields in the order they were added or received.
        public private(set) var fields: [(name: String, value: String)]

        /// Creates headers from name/value pairs, keeping order and repeats.
        public init(_ fields: [(name: String, value: String)] = []) {
            self.fields = fields
        }

        public init(dictionaryLiteral elements: (String, String)...) {
            self.fields = elements.map { (name: $0.0, value: $0.1) }
        }

        /// The first value of the field, ignoring the case of the name.
        public subscript(name: String) -> String? {
            fields.first { $0.name.equalsIgnoringASCIICase(name) }?.value
        }

        /// Every value of the field, in order, ignoring the case of the name.
        public func values(for name: String) -> [String] {
            fields.filter { $0.name.equalsIgnoringASCIICase(name) }.map(\.value)
        }

        /// Whether a field with this name is present.
        public func contains(_ name: String) -> Bool {
            fields.contains { $0.name.equalsIgnoringASCIICase(name) }
        }

        /// Appends a field, keeping fields of the same name.
        public mutating func add(name: String, value: String) {
            fields.append((name: name, value: value))
        }

        /// Replaces every field of this name by one field.
        public mutating func replaceOrAdd(name: String, value: String) {
            remove(name: name)
            fields.append((name: name, value: value))
        }

        /// Removes every field of this name.
        public mutating func remove(name: String) {
            fields.removeAll { $0.name.equalsIgnoringASCIICase(name) }
        }

        /// The number of fields, repeats included.
        public var count: Int { fields.count }

        public func makeIterator() -> IndexingIterator<[(name: String, value: String)]> {
            fields.makeIterator()
        }

        public static func == (lhs: Headers, rhs: Headers) -> Bool {
            lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
        }

        /// Names only: header values may carry credentials and are never printed.
        public var description: String {
            "Headers(\(fields.map(\.name).joined(separator: ", ")))"
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
            let lowerA = (a >= 65 && a <= 90) ? a | 0x20 : a
            let lowerB = (b >= 65 && b <= 90) ? b | 0x20 : b
            if lowerA != lowerB { return false }
        }
        return true
    }
}
