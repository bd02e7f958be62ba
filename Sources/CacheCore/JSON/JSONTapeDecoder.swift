import Foundation

/// A `Decoder` over a ``JSONTape`` that gives what Foundation's `JSONDecoder` with its default options gives, or
/// gives up: any error it throws, whatever the caller's type does with it, marks the decode ``gaveUp``, and the
/// whole document is then decoded again by `JSONDecoder` (see ``JSONFastDecoder``). So only its successes must
/// match Foundation's, value for value; its errors carry no detail, and whatever it is unsure of it refuses.
///
/// One decoder serves a whole decode: a nested value is decoded by moving it to the value's token and back (as
/// Foundation's does), so a nested struct costs no decoder of its own. Confined to the calling thread.
final class JSONTapeDecoder: Decoder {
    /// A copy of the document, owned here so that a container the caller's type keeps can never outlive it.
    let bytes: UnsafeMutableRawBufferPointer
    let tokens: [JSONTape.Token]
    /// The token the decoder stands on.
    @exclusivity(unchecked) var current = 0
    /// The coding path as a stack; containers remember their depth in it.
    @exclusivity(unchecked) private(set) var pathStack: [any CodingKey] = []
    /// Whether anything was refused: sticky, whatever the caller's type catches.
    @exclusivity(unchecked) private(set) var gaveUp = false
    /// Big objects' keys, indexed on their first lookup (token of the object → first value token of each key).
    @exclusivity(unchecked) private var objectIndexes: [Int: [String: Int]] = [:]

    private init(bytes: UnsafeMutableRawBufferPointer, tokens: [JSONTape.Token]) {
        self.bytes = bytes
        self.tokens = tokens
    }

    deinit {
        bytes.deallocate()
    }

    /// `type` decoded from `data`, or nil when this decoder cannot vouch for matching Foundation's.
    static func decode<T: Decodable>(_ type: T.Type, from data: Data) -> T? {
        let count = data.count
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: max(count, 1), alignment: 1)
        data.withUnsafeBytes { copy.copyMemory(from: $0) }
        guard let tape = try? JSONTape(UnsafeRawBufferPointer(rebasing: copy[..<count])) else {
            copy.deallocate()
            return nil
        }
        let decoder = JSONTapeDecoder(bytes: copy, tokens: tape.tokens)
        guard let value = try? decoder.decode(type, at: 0, key: nil), !decoder.gaveUp else { return nil }
        return value
    }

    var codingPath: [any CodingKey] { pathStack }
    var userInfo: [CodingUserInfoKey: Any] { [:] }

    /// Marks the decode as given up and returns the error to throw.
    func refuse() -> DecodingError {
        gaveUp = true
        return DecodingError.dataCorrupted(
            DecodingError.Context(codingPath: [], debugDescription: "Left to Foundation's JSONDecoder."))
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        try keyedContainer(object: current, depth: pathStack.count, extra: [])
    }

    /// A container on the object at `token`. Foundation's decoder reads every key of an object it makes a container
    /// on, and fails on one it cannot (invalid UTF-8, a lone surrogate): so does this one, for keys that are not plain.
    func keyedContainer<Key: CodingKey>(object token: Int, depth: Int, extra: [any CodingKey]) throws
        -> KeyedDecodingContainer<Key>
    {
        let object = tokens[token]
        guard object.kind == .object else { throw refuse() }
        if !object.plain {
            for key in keys(of: token) { _ = try String.read(self, at: key) }
        }
        return KeyedDecodingContainer(
            JSONTapeKeyedContainer<Key>(decoder: self, object: token, depth: depth, extra: extra))
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        guard tokens[current].kind == .array else { throw refuse() }
        return JSONTapeUnkeyedContainer(decoder: self, array: current, depth: pathStack.count, extra: [])
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        self
    }

    // MARK: - Nested values

    /// Decodes `type` from the value at `token`, one key below the path a container at `depth` (plus `extra`) has,
    /// then puts the decoder back (no `depth`: one key below the decoder's own path). The types Foundation's decoder
    /// reads its own way are read that way here.
    /// `mayBeArray` false: the caller knows `T` is not an array the tape decodes itself (an array's elements, checked
    /// once for all of them), which spares a conformance lookup per element.
    func decode<T: Decodable>(
        _ type: T.Type, at token: Int, key: (any CodingKey)?, depth: Int? = nil, extra: [any CodingKey] = [],
        mayBeArray: Bool = true
    ) throws -> T {
        if T.self == Data.self || T.self == URL.self || T.self == Decimal.self {
            return try special(type, at: token)
        }
        let saved = current
        let savedPath: [any CodingKey]?
        if extra.isEmpty, depth == nil || depth == pathStack.count {
            savedPath = nil
            if let key { pathStack.append(key) }
        } else {
            savedPath = pathStack
            pathStack.removeSubrange(min(depth ?? pathStack.count, pathStack.count)...)
            pathStack.append(contentsOf: extra)
            if let key { pathStack.append(key) }
        }
        current = token
        defer {
            current = saved
            if let savedPath {
                pathStack = savedPath
            } else if key != nil {
                pathStack.removeLast()
            }
        }
        if mayBeArray, let array = T.self as? any JSONTapeArray.Type {
            return try array.decode(fromTape: self, array: token) as! T
        }
        return try T(from: self)
    }

    /// `Data` as base64 text, `URL` as its string, as Foundation's default strategies read them; `Decimal` (parsed
    /// from the literal's digits there) is left to Foundation.
    @inline(never)
    private func special<T>(_ type: T.Type, at token: Int) throws -> T {
        if T.self == Data.self, let data = Data(base64Encoded: try String.read(self, at: token)) {
            return data as! T
        }
        if T.self == URL.self, let url = URL(string: try String.read(self, at: token)) {
            return url as! T
        }
        throw refuse()
    }

    // MARK: - Keys

    /// The value token of the first member of `object` named `key`, as Foundation's decoder finds it (by `String`
    /// equality, the first of equal keys winning).
    func member(_ key: some CodingKey, of object: Int) -> Int? {
        let token = tokens[object]
        if token.length > 16 { return indexedMember(key.stringValue, of: object) }
        var name = key.stringValue
        return name.withUTF8 { name -> Int? in
            var ascii = true
            for byte in name where byte >= 0x80 { ascii = false }
            guard ascii, token.plain else { return slowMember(String(decoding: name, as: UTF8.self), of: object) }
            for key in keys(of: object) {
                let candidate = tokens[key]
                if Int(candidate.length) == name.count,
                    name.isEmpty
                        || memcmp(bytes.baseAddress! + Int(candidate.start), name.baseAddress!, name.count) == 0
                {
                    return key + 1
                }
            }
            return nil
        }
    }

    /// Keys compared as `String`s, where bytes would miss canonically equal ones.
    private func slowMember(_ name: String, of object: Int) -> Int? {
        for key in keys(of: object) {
            guard let candidate = try? String.read(self, at: key) else {
                gaveUp = true
                return nil
            }
            if candidate == name { return key + 1 }
        }
        return nil
    }

    private func indexedMember(_ name: String, of object: Int) -> Int? {
        if let index = objectIndexes[object] { return index[name] }
        var index: [String: Int] = [:]
        index.reserveCapacity(Int(tokens[object].length))
        for key in keys(of: object) {
            guard let text = try? String.read(self, at: key) else {
                gaveUp = true
                return nil
            }
            if index[text] == nil { index[text] = key + 1 }
        }
        objectIndexes[object] = index
        return index[name]
    }

    /// The texts of the keys of `object`, each once (the first of equal keys kept), in document order.
    func keyTexts(of object: Int) throws -> [String] {
        var texts: [String] = []
        var seen = Set<String>()
        texts.reserveCapacity(Int(tokens[object].length))
        for key in keys(of: object) {
            let text = try String.read(self, at: key)
            if seen.insert(text).inserted { texts.append(text) }
        }
        return texts
    }

    /// The key tokens of `object`, in document order (each member's value is the token after its key).
    func keys(of object: Int) -> MemberKeys {
        MemberKeys(tokens: tokens, key: object + 1, remaining: Int(tokens[object].length))
    }

    /// Steps from key to key, over each member's value and everything inside it.
    struct MemberKeys: Sequence, IteratorProtocol {
        let tokens: [JSONTape.Token]
        var key: Int
        var remaining: Int

        mutating func next() -> Int? {
            guard remaining > 0 else { return nil }
            remaining -= 1
            defer { key = Int(tokens[key + 1].end) }
            return key
        }
    }
}

// MARK: - The single value container

extension JSONTapeDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool { tokens[current].kind == .null }
    func decode(_ type: Bool.Type) throws -> Bool { try Bool.read(self, at: current) }
    func decode(_ type: String.Type) throws -> String { try String.read(self, at: current) }
    func decode(_ type: Double.Type) throws -> Double { try Double.read(self, at: current) }
    func decode(_ type: Float.Type) throws -> Float { try Float.read(self, at: current) }
    func decode(_ type: Int.Type) throws -> Int { try Int.read(self, at: current) }
    func decode(_ type: Int8.Type) throws -> Int8 { try Int8.read(self, at: current) }
    func decode(_ type: Int16.Type) throws -> Int16 { try Int16.read(self, at: current) }
    func decode(_ type: Int32.Type) throws -> Int32 { try Int32.read(self, at: current) }
    func decode(_ type: Int64.Type) throws -> Int64 { try Int64.read(self, at: current) }
    func decode(_ type: UInt.Type) throws -> UInt { try UInt.read(self, at: current) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try UInt8.read(self, at: current) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try UInt16.read(self, at: current) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try UInt32.read(self, at: current) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try UInt64.read(self, at: current) }
    func decode(_ type: Int128.Type) throws -> Int128 { throw refuse() }
    func decode(_ type: UInt128.Type) throws -> UInt128 { throw refuse() }
    func decode<T: Decodable>(_ type: T.Type) throws -> T { try decode(type, at: current, key: nil) }
}

/// A key of an array element, named as Foundation's decoder names it.
struct JSONIndexKey: CodingKey {
    let intValue: Int?
    var stringValue: String { "Index \(intValue ?? 0)" }

    init(index: Int) {
        intValue = index
    }

    init?(stringValue: String) {
        nil
    }

    init?(intValue: Int) {
        self.intValue = intValue
    }
}
