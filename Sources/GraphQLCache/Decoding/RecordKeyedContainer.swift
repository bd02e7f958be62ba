import GraphQLLanguage

/// A keyed container's state, in one object: the standard library's type-erasing box copies the container
/// for every member decoded, and one reference is the cheapest thing to copy.
///
/// Its members come from a record (the collected fields of its selection, under their response keys) or from a
/// plain JSON object.
final class KeyedFrame {
    let decoder: RecordDecoder
    let record: NormalizedRecord?
    /// The record's stored fields, read once (every access to the record's property copies them).
    let stored: RecordFields
    /// The record's collected fields; `nil` for a JSON object.
    let collected: CollectedFields?
    /// ``collected``'s fields (empty for a JSON object), held here so that a member's lookup reads them without
    /// unwrapping (and retaining) the collected fields and the record first.
    let fields: [CollectedField]
    /// Whether the members come from a record (otherwise from ``object``).
    let isRecord: Bool
    let object: GraphQLJSONObject?
    /// The decoder's path depth at creation: the container's path is that prefix of the decoder's stack (not
    /// copied here, which would make the next push reallocate the stack).
    let depth: Int
    /// Whether every selected field is stored at its expected position, its own fields checked on entry (a read
    /// that checks while it decodes): leaves are read by position.
    let atHints: Bool
    /// Where the next member is expected: synthesized `init(from:)` decodes members in declaration order,
    /// which is usually the selection's order, so one key comparison replaces a hash lookup.
    /// Not checked for exclusivity at run time (a check costs as much as the lookup it guards): the frame belongs to
    /// one container on one thread, and every access is a plain load or store.
    @exclusivity(unchecked) var nextPosition = 0
    /// The collected positions of sub-selected members whose records are not checked yet (see
    /// ``EnteredRecord/unchecked``); a member decoded with everything below it checked clears its bit.
    @exclusivity(unchecked) var unchecked: UInt64 = 0

    init(decoder: RecordDecoder, record: NormalizedRecord, collected: CollectedFields) {
        self.decoder = decoder
        self.record = record
        self.stored = record.fields
        self.collected = collected
        self.fields = collected.fields
        self.isRecord = true
        self.object = nil
        self.depth = decoder.pathStack.count
        self.atHints = false
    }

    init(decoder: RecordDecoder, record: NormalizedRecord, entered: EnteredRecord) {
        self.decoder = decoder
        self.record = record
        self.stored = record.fields
        self.collected = entered.collected
        self.fields = entered.collected.fields
        self.isRecord = true
        self.object = nil
        self.depth = decoder.pathStack.count
        self.atHints = entered.atHints
        self.unchecked = entered.unchecked
    }

    init(decoder: RecordDecoder, object: GraphQLJSONObject) {
        self.decoder = decoder
        self.record = nil
        self.stored = RecordFields()
        self.collected = nil
        self.fields = []
        self.isRecord = false
        self.object = object
        self.depth = decoder.pathStack.count
        self.atHints = false
    }

    /// Notes that the member at `position` was decoded; with everything below it checked, it needs no check later.
    func decoded(at position: Int) {
        if unchecked != 0, decoder.lastChecked, position < UInt64.bitWidth {
            unchecked &= ~(1 << UInt64(position))
        }
    }
}

/// The members of an object, by response key: only what the operation selects is visible, so a type decodes
/// the same from the cache as from the response.
struct RecordKeyedContainer<Key: CodingKey>: KeyedDecodingContainerProtocol {
    private let frame: KeyedFrame

    init(frame: KeyedFrame) {
        self.frame = frame
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
        if let collected = frame.collected {
            return collected.fields.compactMap { field in
                member(named: field.responseKey) != nil ? Key(stringValue: field.responseKey) : nil
            }
        }
        return frame.object?.keys.compactMap { Key(stringValue: $0) } ?? []
    }

    func contains(_ key: Key) -> Bool {
        member(named: key.stringValue) != nil
    }

    /// The member's value, or `nil` when the selection does not have it.
    func member(named name: String) -> DecodingValue? {
        memberAndPosition(named: name)?.value
    }

    /// The member's value and its position among the collected fields (or the object's keys).
    private func memberAndPosition(named name: String) -> (value: DecodingValue, position: Int)? {
        guard frame.isRecord else {
            return objectMember(named: name)
        }
        guard let position = position(of: name) else {
            return nil
        }
        let field = frame.fields[position]
        if field.isTypename {
            return frame.record?.typename.map { (.json(.string($0)), position) }
        }
        let stored =
            frame.atHints
            ? frame.stored.entries[field.storedPosition].field
            : frame.stored.field(decoder.storageKey(of: field), hint: field.storedPosition)
        guard let stored, let value = decoder.value(of: stored.value, child: field.child) else {
            return nil
        }
        return (value, position)
    }

    private func objectMember(named name: String) -> (value: DecodingValue, position: Int)? {
        guard let object = frame.object, let position = objectPosition(of: name, in: object) else {
            return nil
        }
        return (.json(object.values[position]), position)
    }

    /// A member's JSON when it is a leaf (or `null`): the scalar fast path, without a `DecodingValue`.
    func leaf(named name: String) -> GraphQLJSON? {
        guard frame.isRecord else {
            return objectMember(named: name).flatMap { member in
                if case .json(let json) = member.value { json } else { nil }
            }
        }
        guard let position = position(of: name) else {
            return nil
        }
        let field = frame.fields[position]
        if field.isTypename {
            return frame.record?.typename.map(GraphQLJSON.string)
        }
        // The stored value is read in place: copying the stored field out first costs a retain and a release of
        // its value for every leaf decoded.
        if frame.atHints {
            return frame.stored.leaf(at: field.storedPosition, selectsChildren: field.child != nil)
        }
        return frame.stored.leaf(
            field.fixedStorageKey ?? decoder.storageKey(of: field), hint: field.storedPosition,
            selectsChildren: field.child != nil)
    }

    /// The position of a response key among the collected fields, trying the position after the last member
    /// decoded first.
    private func position(of name: String) -> Int? {
        let hint = frame.nextPosition
        let position: Int
        let fields = frame.fields
        if hint < fields.count, fields[hint].responseKey == name {
            position = hint
        } else if hint + 1 < fields.count, fields[hint + 1].responseKey == name {
            // The member after a skipped one: most often a `__typename` the client added and the type does not decode.
            position = hint + 1
        } else if let found = frame.collected?.positions[name] {
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

    private func require(_ key: Key) throws -> (value: DecodingValue, position: Int) {
        guard let found = memberAndPosition(named: key.stringValue) else {
            throw DecodingError.keyNotFound(
                key,
                decoder.errorContext("No value for '\(key.stringValue)' in the selection.", path: codingPath)
            )
        }
        return found
    }

    func decodeNil(forKey key: Key) throws -> Bool {
        if case .json(.null) = try require(key).value {
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
        let (value, position) = try require(key)
        let decoded = try decoder.decode(type, from: value, at: key)
        frame.decoded(at: position)
        return decoded
    }

    /// One lookup instead of the default's three (contains, decodeNil, decode).
    func decodeIfPresent<T: Decodable>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let (value, position) = memberAndPosition(named: key.stringValue) else {
            return nil
        }
        if case .json(.null) = value {
            return nil
        }
        let decoded = try decoder.decode(type, from: value, at: key)
        frame.decoded(at: position)
        return decoded
    }

    func nestedContainer<NestedKey: CodingKey>(
        keyedBy type: NestedKey.Type,
        forKey key: Key
    ) throws -> KeyedDecodingContainer<NestedKey> {
        try decoder.forked(at: try require(key).value, key: key).container(keyedBy: type)
    }

    func nestedUnkeyedContainer(forKey key: Key) throws -> any UnkeyedDecodingContainer {
        try decoder.forked(at: try require(key).value, key: key).unkeyedContainer()
    }

    func superDecoder() throws -> any Decoder {
        let key = NamedCodingKey("super")
        return decoder.forked(at: member(named: key.stringValue) ?? .json(.null), key: key)
    }

    func superDecoder(forKey key: Key) throws -> any Decoder {
        decoder.forked(at: member(named: key.stringValue) ?? .json(.null), key: key)
    }
}
