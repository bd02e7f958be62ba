/// An array of a ``JSONTape``, read in order. As with Foundation's decoder, an element that fails to decode is not
/// stepped over (and here the whole decode is given up anyway).
struct JSONTapeUnkeyedContainer: UnkeyedDecodingContainer {
    let decoder: JSONTapeDecoder
    let depth: Int
    let extra: [any CodingKey]
    let count: Int?
    private(set) var currentIndex = 0
    /// The token of the element at `currentIndex`.
    private var cursor: Int

    init(decoder: JSONTapeDecoder, array: Int, depth: Int, extra: [any CodingKey]) {
        self.decoder = decoder
        self.depth = depth
        self.extra = extra
        count = Int(decoder.tokens[array].length)
        cursor = array + 1
    }

    var codingPath: [any CodingKey] {
        Array(decoder.pathStack.prefix(depth)) + extra
    }

    var isAtEnd: Bool {
        currentIndex >= count!
    }

    private mutating func step() {
        cursor = Int(decoder.tokens[cursor].end)
        currentIndex += 1
    }

    private func element() throws -> Int {
        guard !isAtEnd else { throw decoder.refuse() }
        return cursor
    }

    mutating func decodeNil() throws -> Bool {
        guard decoder.tokens[try element()].kind == .null else { return false }
        step()
        return true
    }

    private mutating func scalar<T: JSONTapeScalar>(_ type: T.Type) throws -> T {
        let value = try T.read(decoder, at: try element())
        step()
        return value
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

    mutating func decode(_ type: Int128.Type) throws -> Int128 { throw decoder.refuse() }
    mutating func decode(_ type: UInt128.Type) throws -> UInt128 { throw decoder.refuse() }

    mutating func decode<T: Decodable>(_ type: T.Type) throws -> T {
        let value = try decoder.decode(
            type, at: try element(), key: JSONIndexKey(index: currentIndex), depth: depth, extra: extra)
        step()
        return value
    }

    mutating func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        let container: KeyedDecodingContainer<NestedKey> = try decoder.keyedContainer(
            object: try element(), depth: depth, extra: extra + [JSONIndexKey(index: currentIndex)])
        step()
        return container
    }

    mutating func nestedUnkeyedContainer() throws -> any UnkeyedDecodingContainer {
        let token = try element()
        guard decoder.tokens[token].kind == .array else { throw decoder.refuse() }
        let key = JSONIndexKey(index: currentIndex)
        step()
        return JSONTapeUnkeyedContainer(decoder: decoder, array: token, depth: depth, extra: extra + [key])
    }

    mutating func superDecoder() throws -> any Decoder {
        throw decoder.refuse()
    }
}
