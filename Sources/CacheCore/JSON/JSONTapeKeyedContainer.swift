/// An object of a ``JSONTape``, read by key (see ``JSONTapeDecoder/member(_:of:)`` for how a key is found).
struct JSONTapeKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    let decoder: JSONTapeDecoder
    /// The object's token.
    let object: Int
    /// The decoder's path depth where the container was made, and the keys below it (a nested container's).
    let depth: Int
    let extra: [any CodingKey]

    var codingPath: [any CodingKey] {
        Array(decoder.pathStack.prefix(depth)) + extra
    }

    var allKeys: [Key] {
        guard let keys = try? decoder.keyTexts(of: object) else {
            _ = decoder.refuse()
            return []
        }
        return keys.compactMap { Key(stringValue: $0) }
    }

    func contains(_ key: Key) -> Bool {
        decoder.member(key, of: object) != nil
    }

    private func value(_ key: Key) throws -> Int {
        guard let token = decoder.member(key, of: object) else { throw decoder.refuse() }
        return token
    }

    /// The member's token, or nil when it is absent or null (as `decodeIfPresent` reads them).
    private func present(_ key: Key) -> Int? {
        guard let token = decoder.member(key, of: object), decoder.tokens[token].kind != .null else { return nil }
        return token
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        decoder.tokens[try value(key)].kind == .null
    }

    private func scalar<T: JSONTapeScalar>(_ type: T.Type, _ key: Key) throws -> T {
        try T.read(decoder, at: try value(key))
    }

    private func scalarIfPresent<T: JSONTapeScalar>(_ type: T.Type, _ key: Key) throws -> T? {
        guard let token = present(key) else { return nil }
        return try T.read(decoder, at: token)
    }

    func decode(_ type: Bool.Type, forKey key: Key) throws -> Bool { try scalar(type, key) }
    func decode(_ type: String.Type, forKey key: Key) throws -> String { try scalar(type, key) }
    func decode(_ type: Double.Type, forKey key: Key) throws -> Double { try scalar(type, key) }
    func decode(_ type: Float.Type, forKey key: Key) throws -> Float { try scalar(type, key) }
    func decode(_ type: Int.Type, forKey key: Key) throws -> Int { try scalar(type, key) }
    func decode(_ type: Int8.Type, forKey key: Key) throws -> Int8 { try scalar(type, key) }
    func decode(_ type: Int16.Type, forKey key: Key) throws -> Int16 { try scalar(type, key) }
    func decode(_ type: Int32.Type, forKey key: Key) throws -> Int32 { try scalar(type, key) }
    func decode(_ type: Int64.Type, forKey key: Key) throws -> Int64 { try scalar(type, key) }
    func decode(_ type: UInt.Type, forKey key: Key) throws -> UInt { try scalar(type, key) }
    func decode(_ type: UInt8.Type, forKey key: Key) throws -> UInt8 { try scalar(type, key) }
    func decode(_ type: UInt16.Type, forKey key: Key) throws -> UInt16 { try scalar(type, key) }
    func decode(_ type: UInt32.Type, forKey key: Key) throws -> UInt32 { try scalar(type, key) }
    func decode(_ type: UInt64.Type, forKey key: Key) throws -> UInt64 { try scalar(type, key) }

    /// 128-bit integers are left to Foundation (the standard library's default would throw past the give-up mark).
    func decode(_ type: Int128.Type, forKey key: Key) throws -> Int128 { throw decoder.refuse() }
    func decode(_ type: UInt128.Type, forKey key: Key) throws -> UInt128 { throw decoder.refuse() }
    func decodeIfPresent(_ type: Int128.Type, forKey key: Key) throws -> Int128? { throw decoder.refuse() }
    func decodeIfPresent(_ type: UInt128.Type, forKey key: Key) throws -> UInt128? { throw decoder.refuse() }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decode(type, at: try value(key), key: key, depth: depth, extra: extra)
    }

    func decodeIfPresent(_ type: Bool.Type, forKey key: Key) throws -> Bool? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: String.Type, forKey key: Key) throws -> String? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: Double.Type, forKey key: Key) throws -> Double? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: Float.Type, forKey key: Key) throws -> Float? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: Int.Type, forKey key: Key) throws -> Int? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: Int64.Type, forKey key: Key) throws -> Int64? { try scalarIfPresent(type, key) }
    func decodeIfPresent(_ type: UInt64.Type, forKey key: Key) throws -> UInt64? { try scalarIfPresent(type, key) }

    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let token = present(key) else { return nil }
        return try decoder.decode(type, at: token, key: key, depth: depth, extra: extra)
    }

    func nestedContainer<NestedKey: CodingKey>(keyedBy type: NestedKey.Type, forKey key: Key) throws
        -> KeyedDecodingContainer<NestedKey>
    {
        try decoder.keyedContainer(object: try value(key), depth: depth, extra: extra + [key])
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        let token = try value(key)
        guard decoder.tokens[token].kind == .array else { throw decoder.refuse() }
        return JSONTapeUnkeyedContainer(decoder: decoder, array: token, depth: depth, extra: extra + [key])
    }

    /// Left to Foundation's decoder (a class hierarchy's decoding is rare in answers, and its paths subtle).
    func superDecoder() throws -> any Decoder {
        throw decoder.refuse()
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        throw decoder.refuse()
    }
}
