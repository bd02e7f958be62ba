/// Where a keyed container's members come from.
import GraphQLLanguage

enum KeyedSource {
    /// A record: members are the collected fields of its selection, under their response keys.
    case record(NormalizedRecord, CollectedFields)
    /// A plain JSON object.
    case object(GraphQLJSONObject)
}

/// A keyed container's state, in one object: the standard library's type-erasing box copies the container
/// for every member decoded, and one reference is the cheapest thing to copy.
final class KeyedFrame {
    let decoder: RecordDecoder
    let source: KeyedSource
    /// The decoder's path depth at creation: the container's path is that prefix of the decoder's stack (not
    /// copied here, which would make the next push reallocate the stack).
    let depth: Int
    /// Where the next member is expected: synthesized `init(from:)` decodes members in declaration order,
    /// which is usually the selection's order, so one key comparison replaces a hash lookup.
    /// Not checked for exclusivity at run time (a check costs as much as the lookup it guards): the frame belongs to
    /// one container on one thread, and every access is a plain load or store.
    @exclusivity(unchecked) var nextPosition = 0

    init(decoder: RecordDecoder, source: KeyedSource) {
        self.decoder = decoder
        self.source = source
        self.depth = decoder.pathStack.count
    }
}

/// The members of an object, by response key: only what the operation selects is visible, so a type decodes
/// the same from the cache as from the response.
struct RecordKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    private let frame: KeyedFrame

    init(decoder: RecordDecoder, source: KeyedSource) {
        frame = KeyedFrame(decoder: decoder, source: source)
    }

    private var decoder: RecordDecoder {
        frame.decoder
    }

    private var depth: Int {
        frame.depth
    }

    var codingPath: [any CodingKey] {
        Array(decoder.pathStack.prefix(depth))
    }

    var allKeys: [Key] {
        switch frame.source {
        case .record(_, let collected):
            return collected.fields.compactMap { field in
                member(named: field.responseKey) != nil ? Key(stringValue: field.responseKey) : nil
            }
        case .object(let object):
            return object.keys.compactMap { Key(stringValue: $0) }
        }
    }

    func contains(_ key: Key) -> Bool {
        member(named: key.stringValue) != nil
    }

    /// The member's value, or `nil` when the selection does not have it.
    func member(named name: String) -> DecodingValue? {
        switch frame.source {
        case .record(let record, let collected):
            guard let position = position(of: name, in: collected) else {
                return nil
            }
            let field = collected.fields[position]
            if field.isTypename {
                return record.typename.map { .json(.string($0)) }
            }
            guard let stored = record.fields.field(decoder.storageKey(of: field), hint: field.storedPosition) else {
                return nil
            }
            return decoder.value(of: stored.value, child: field.child)
        case .object(let object):
            return objectPosition(of: name, in: object).map { .json(object.values[$0]) }
        }
    }

    /// A member's JSON when it is a leaf (or `null`): the scalar fast path, without a `DecodingValue`.
    func leaf(named name: String) -> GraphQLJSON? {
        switch frame.source {
        case .record(let record, let collected):
            guard let position = position(of: name, in: collected) else {
                return nil
            }
            let field = collected.fields[position]
            if field.isTypename {
                return record.typename.map(GraphQLJSON.string)
            }
            // The stored value is read in place: copying the stored field out first costs a retain and a release of
            // its value for every leaf decoded.
            return record.fields.leaf(
                field.fixedStorageKey ?? decoder.storageKey(of: field), hint: field.storedPosition,
                selectsChildren: field.child != nil)
        case .object(let object):
            return objectPosition(of: name, in: object).map { object.values[$0] }
        }
    }

    /// The position of a response key among the collected fields, trying the position after the last member
    /// decoded first.
    private func position(of name: String, in collected: CollectedFields) -> Int? {
        let hint = frame.nextPosition
        let position: Int
        let fields = collected.fields
        if hint < fields.count, fields[hint].responseKey == name {
            position = hint
        } else if hint + 1 < fields.count, fields[hint + 1].responseKey == name {
            // The member after a skipped one: most often a `__typename` the client added and the type does not decode.
            position = hint + 1
        } else if let found = collected.positions[name] {
            position = found
        } else {
            return nil
        }
        frame.nextPosition = position + 1
        return position
    }

    private func objectPosition(of name: String, in object: GraphQLJSONObject) -> Int? {
        let hint = frame.nextPosition
        let position: Int
        if hint < object.keys.count, object.keys[hint] == name {
            position = hint
        } else if let found = object.position(of: name) {
            position = found
        } else {
            return nil
        }
        frame.nextPosition = position + 1
        return position
    }

    private func require(_ key: Key) throws -> DecodingValue {
        guard let value = member(named: key.stringValue) else {
            throw DecodingError.keyNotFound(
                key,
                decoder.errorContext("No value for '\(key.stringValue)' in the selection.", path: codingPath)
            )
        }
        return value
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .json(.null) = try require(key) {
            return true
        }
        return false
    }

    /// The error for a leaf that is absent, null or of another type.
    func leafError(_ type: Any.Type, _ json: GraphQLJSON?, _ key: Key) -> DecodingError {
        let path = codingPath + [key]
        guard let json else {
            if member(named: key.stringValue) == nil {
                return DecodingError.keyNotFound(
                    key,
                    decoder.errorContext("No value for '\(key.stringValue)' in the selection.", path: codingPath)
                )
            }
            return DecodingError.typeMismatch(type, decoder.errorContext("Expected \(type).", path: path))
        }
        if json.isNull {
            return DecodingError.valueNotFound(
                type, decoder.errorContext("Expected \(type) but found null.", path: path))
        }
        return DecodingError.typeMismatch(type, decoder.errorContext("Expected \(type).", path: path))
    }

    func decode<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T {
        try decoder.decode(type, from: try require(key), at: key)
    }

    /// One lookup instead of the default's three (contains, decodeNil, decode).
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = member(named: key.stringValue) else {
            return nil
        }
        if case .json(.null) = value {
            return nil
        }
        return try decoder.decode(type, from: value, at: key)
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.forked(at: try require(key), key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.forked(at: try require(key), key: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let key = NamedCodingKey("super")
        return decoder.forked(at: member(named: key.stringValue) ?? .json(.null), key: key)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder.forked(at: member(named: key.stringValue) ?? .json(.null), key: key)
    }
}
