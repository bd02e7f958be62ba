/// Where an unkeyed container's elements come from.
import GraphQLLanguage

enum UnkeyedSource {
    /// An object-typed list field's stored elements and the selection of each.
    case stored([GraphQLRecordValue], SelectionNode)
    /// A plain JSON array.
    case json([GraphQLJSON])

    var count: Int {
        switch self {
        case .stored(let elements, _): elements.count
        case .json(let elements): elements.count
        }
    }
}

/// The elements of a list, in order.
struct RecordUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: RecordDecoder
    let source: UnkeyedSource
    private let depth: Int
    private(set) var currentIndex = 0

    init(decoder: RecordDecoder, source: UnkeyedSource) {
        self.decoder = decoder
        self.source = source
        self.depth = decoder.pathStack.count
    }

    var codingPath: [any CodingKey] {
        Array(decoder.pathStack.prefix(depth))
    }

    var count: Int? {
        source.count
    }

    var isAtEnd: Bool {
        currentIndex >= source.count
    }

    private func element(_ index: Int) throws -> DecodingValue {
        guard index < source.count else {
            throw DecodingError.valueNotFound(
                Any.self,
                decoder.errorContext("The list has no element \(index).", path: codingPath + [IndexCodingKey(index)])
            )
        }
        switch source {
        case .stored(let elements, let node):
            guard let value = decoder.value(of: elements[index], child: node) else {
                throw DecodingError.valueNotFound(
                    Any.self,
                    decoder.errorContext("A listed record is gone.", path: codingPath + [IndexCodingKey(index)])
                )
            }
            return value
        case .json(let elements):
            return .json(elements[index])
        }
    }

    mutating func decodeNil() throws -> Bool {
        if case .json(.null) = try element(currentIndex) {
            noteChecked(currentIndex, true)
            currentIndex += 1
            return true
        }
        return false
    }

    /// Counts a stored element whose decode checked everything below it, for a read that checks while it decodes
    /// (only while the decoder is still at the list, and element after element from the first).
    private func noteChecked(_ index: Int, _ checked: Bool) {
        if checked, case .stored = source, decoder.pathStack.count == depth, decoder.checkedElements == index {
            decoder.checkedElements = index + 1
        }
    }

    private mutating func scalar<T: DecodableScalar>(_ type: T.Type) throws -> T {
        let value = try element(currentIndex)
        let path = codingPath + [IndexCodingKey(currentIndex)]
        guard case .json(let json) = value else {
            throw DecodingError.typeMismatch(type, decoder.errorContext("Expected \(type).", path: path))
        }
        guard let scalar = T.scalar(from: json) else {
            if json.isNull {
                throw DecodingError.valueNotFound(
                    type, decoder.errorContext("Expected \(type) but found null.", path: path))
            }
            throw DecodingError.typeMismatch(type, decoder.errorContext("Expected \(type).", path: path))
        }
        currentIndex += 1
        return scalar
    }

    mutating func decode(_ type: Bool.Type) throws -> Bool { try scalar(type) }
    mutating func decode(_ type: String.Type) throws -> String { try scalar(type) }
    mutating func decode(_ type: Double.Type) throws -> Double { try scalar(type) }
    mutating func decode(_ type: Float.Type) throws -> Float { try scalar(type) }
    mutating func decode(_ type: Int.Type) throws -> Int { try scalar(type) }
    mutating func decode(_ type: Int8.Type) throws -> Int8 { try scalar(type) }
    mutating func decode(_ type: Int16.Type) throws -> Int16 { try scalar(type) }
    mutating func decode(_ type: Int32.Type) throws -> Int32 { try scalar(type) }
    mutating func decode(_ type: Int64.Type) throws -> Int64 { try scalar(type) }
    mutating func decode(_ type: UInt.Type) throws -> UInt { try scalar(type) }
    mutating func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar(type) }
    mutating func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar(type) }
    mutating func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar(type) }
    mutating func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar(type) }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try element(currentIndex)
        let decoded = try decoder.decode(type, from: value, at: IndexCodingKey(currentIndex))
        noteChecked(currentIndex, decoder.lastChecked)
        currentIndex += 1
        return decoded
    }

    mutating func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type
    ) throws -> KeyedDecodingContainer<NestedKey> {
        let value = try element(currentIndex)
        let container = try decoder.forked(at: value, key: IndexCodingKey(currentIndex)).container(keyedBy: type)
        currentIndex += 1
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let value = try element(currentIndex)
        let container = try decoder.forked(at: value, key: IndexCodingKey(currentIndex)).unkeyedContainer()
        currentIndex += 1
        return container
    }

    mutating func superDecoder() throws -> any Decoder {
        let value = try element(currentIndex)
        let forked = decoder.forked(at: value, key: IndexCodingKey(currentIndex))
        currentIndex += 1
        return forked
    }
}
