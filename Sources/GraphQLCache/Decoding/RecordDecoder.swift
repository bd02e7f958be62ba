/// What a decoder is positioned on.
import GraphQLLanguage

enum DecodingValue {
    /// A normalized object and the selection at its position.
    case record(NormalizedRecord, SelectionNode)
    /// The stored elements of an object-typed list field and the selection of its elements.
    case list([GraphQLRecordValue], SelectionNode)
    /// A leaf value, or any value of a plain JSON tree.
    case json(GraphQLJSON)
}

/// A `Decoder` reading the caller's types straight from normalized records (or from a `GraphQLJSON` tree),
/// without building or serializing an intermediate document.
///
/// One decoder object serves a whole decode: nested values are decoded by repositioning it and restoring it
/// afterwards (as Foundation's JSONDecoder does), so a nested struct costs no allocation of its own. Only used
/// under the scope's read lock, on one thread.
///
/// Given a reader, it checks the selection while it decodes (a read then visits each record once): every record it
/// enters has its own fields checked on entry, and what the caller's type leaves undecoded is checked by
/// ``finishChecks(root:node:)``. Any miss marks the decode ``missed``, whatever the caller's `init(from:)` does with
/// the error thrown; the read then starts over with a full check, so no partial value ever comes out.
final class RecordDecoder: Decoder {
    let records: RecordMap
    let context: SelectionContext?
    let userInfo: [CodingUserInfoKey: Any]
    // Exclusivity is not checked at run time on the mutable state (the checks were a tenth of a decode): the decoder
    // is confined to one thread, and every access is a short load, store or in-place call, never held across a call
    // that could access it again.
    @exclusivity(unchecked) var value: DecodingValue
    /// The coding path as a stack; containers remember their depth in it.
    @exclusivity(unchecked) private(set) var pathStack: [any CodingKey] = []
    /// The checks of a read that checks while it decodes; `nil` when only decoding.
    @exclusivity(unchecked) var reader: RecordReader?
    /// Whether a check failed (the selection is not wholly cached): sticky, whatever the caller's type catches.
    @exclusivity(unchecked) private(set) var missed = false
    /// Whether a keyed container was made on the record at the current position (which checked its own fields).
    @exclusivity(unchecked) private var enteredHere = false
    /// How many of the current list's elements, from the first, were decoded with everything below them checked.
    @exclusivity(unchecked) var checkedElements = 0
    /// Whether everything below the value of the last ``decode(_:from:at:)`` was checked.
    @exclusivity(unchecked) private(set) var lastChecked = false
    /// The containers of entered records with sub-selected members not checked on entry.
    @exclusivity(unchecked) private var unfinished: [KeyedFrame] = []

    init(
        records: RecordMap,
        context: SelectionContext?,
        value: DecodingValue,
        userInfo: [CodingUserInfoKey: Any] = [:],
        path: [any CodingKey] = [],
        checking reader: RecordReader? = nil
    ) {
        self.records = records
        self.context = context
        self.value = value
        self.userInfo = userInfo
        self.pathStack = path
        self.reader = reader
        pathStack.reserveCapacity(16)
    }

    var codingPath: [any CodingKey] {
        pathStack
    }

    func container<Key: CodingKey>(keyedBy type: Key.Type) throws -> KeyedDecodingContainer<Key> {
        switch value {
        case .record(let record, let node):
            if reader != nil {
                return KeyedDecodingContainer(RecordKeyedContainer<Key>(frame: try enterChecking(record, node)))
            }
            return KeyedDecodingContainer(
                RecordKeyedContainer<Key>(
                    frame: KeyedFrame(decoder: self, record: record, collected: try collected(record, node))))
        case .json(.object(let object)):
            return KeyedDecodingContainer(RecordKeyedContainer<Key>(frame: KeyedFrame(decoder: self, object: object)))
        case .json(.null):
            throw DecodingError.valueNotFound(
                [String: Any].self,
                errorContext("Expected an object but found null.")
            )
        case .list, .json:
            throw DecodingError.typeMismatch([String: Any].self, errorContext("Expected an object."))
        }
    }

    func unkeyedContainer() throws -> any UnkeyedDecodingContainer {
        switch value {
        case .list(let elements, let node):
            return RecordUnkeyedContainer(decoder: self, source: .stored(elements, node))
        case .json(.array(let elements)):
            return RecordUnkeyedContainer(decoder: self, source: .json(elements))
        case .json(.null):
            throw DecodingError.valueNotFound([Any].self, errorContext("Expected a list but found null."))
        case .record, .json:
            throw DecodingError.typeMismatch([Any].self, errorContext("Expected a list."))
        }
    }

    func singleValueContainer() throws -> any SingleValueDecodingContainer {
        self
    }

    // MARK: - Nested values

    /// Decodes `type` from `value`, one level below the current path, then puts the decoder back.
    func decode<T: Decodable>(_ type: T.Type, from value: DecodingValue, at key: any CodingKey) throws -> T {
        if GraphQLJSON.isDecodedSpecially(type), case .json(let json) = value {
            return try decodeSpecially(type, from: json, at: key)
        }
        let saved = self.value
        let savedEntered = enteredHere
        let savedElements = checkedElements
        self.value = value
        enteredHere = false
        checkedElements = 0
        pathStack.append(key)
        defer {
            self.value = saved
            enteredHere = savedEntered
            checkedElements = savedElements
            pathStack.removeLast()
        }
        let decoded = try T(from: self)
        lastChecked =
            switch value {
            case .record: enteredHere
            case .list(let elements, _): checkedElements == elements.count
            case .json(.null): true
            case .json: false
            }
        return decoded
    }

    /// A type ``GraphQLJSON/isDecodedSpecially(_:)`` names, from a leaf. Kept out of ``decode(_:from:at:)``: its
    /// optional of `T` would make every nested decode look up that optional's metadata.
    @inline(never)
    private func decodeSpecially<T>(_ type: T.Type, from json: GraphQLJSON, at key: any CodingKey) throws -> T {
        guard let decoded = json.specialValue(as: type) else {
            pathStack.append(key)
            defer { pathStack.removeLast() }
            throw DecodingError.typeMismatch(type, errorContext("The value does not fit \(type)."))
        }
        lastChecked = json.isNull
        return decoded
    }

    // MARK: - Checking while decoding

    /// Enters a record for a read that checks while it decodes (see ``RecordReader/enterChecking(_:node:)``).
    private func enterChecking(_ record: NormalizedRecord, _ node: SelectionNode) throws -> KeyedFrame {
        guard let entered = try? reader!.enterChecking(record, node: node) else {
            throw incomplete()
        }
        enteredHere = true
        let frame = KeyedFrame(decoder: self, record: record, entered: entered)
        if entered.unchecked != 0 {
            unfinished.append(frame)
        }
        return frame
    }

    /// Marks the decode as missed and returns the error to throw.
    func incomplete() -> DecodingError {
        missed = true
        return DecodingError.dataCorrupted(errorContext("The cache does not hold the whole selection."))
    }

    /// After the caller's type is decoded: checks what the decode did not reach (the root when it was not
    /// entered, members not decoded); whether the whole selection is cached.
    func finishChecks(root: NormalizedRecord, node: SelectionNode) throws(GraphQLCacheError) -> Bool {
        guard !missed, reader != nil else {
            return false
        }
        if !enteredHere {
            return try reader!.check(root, node: node)
        }
        for frame in unfinished where frame.unchecked != 0 {
            guard let record = frame.record, let collected = frame.collected else {
                return false
            }
            var bits = frame.unchecked
            while bits != 0 {
                let offset = bits.trailingZeroBitCount
                bits &= bits - 1
                guard try reader!.checkBehind(collected.fields[offset], of: record) else {
                    return false
                }
            }
        }
        return true
    }

    /// Lets go of the containers kept for ``finishChecks(root:node:)``: each holds this decoder, so keeping them past
    /// the decode would keep both alive for good.
    func releaseFrames() {
        unfinished.removeAll()
    }

    /// The reader with what the checks gathered (write times, touched records), leaving none here.
    func takeReader() -> RecordReader? {
        reader.take()
    }

    /// A decoder of its own for `value` (for `superDecoder` and nested containers).
    func forked(at value: DecodingValue, key: any CodingKey) -> RecordDecoder {
        RecordDecoder(records: records, context: context, value: value, userInfo: userInfo, path: pathStack + [key])
    }

    /// The collected fields of a record; always memoized by the check that precedes decoding.
    func collected(_ record: NormalizedRecord, _ node: SelectionNode) throws -> CollectedFields {
        if let known = node.memoizedFields(for: record.typename) {
            return known
        }
        guard let context else {
            throw DecodingError.dataCorrupted(errorContext("No selection to decode a record with."))
        }
        do {
            return try node.fields(for: record.typename, in: context)
        } catch {
            throw DecodingError.dataCorrupted(errorContext("The record's fields cannot be collected: \(error)."))
        }
    }

    /// The storage key of a collected field under the decode's variables (a record's fields are only reached with
    /// a context).
    func storageKey(of field: CollectedField) -> String {
        field.fixedStorageKey ?? context?.storageKey(of: field) ?? field.name
    }

    /// The value a stored field gives to a decoder: the referenced record, the list, or the leaf.
    func value(of stored: GraphQLRecordValue, child: SelectionNode?) -> DecodingValue? {
        guard let child else {
            return stored.leafValue.map(DecodingValue.json)
        }
        switch stored {
        case .reference(let key):
            guard let record = records[key] else {
                if reader != nil {
                    _ = incomplete()
                }
                return nil
            }
            return .record(record, child)
        case .list(let elements):
            return .list(elements, child)
        case .scalar(let json):
            return .json(json)
        }
    }

    func errorContext(_ description: String, path: [any CodingKey]? = nil) -> DecodingError.Context {
        DecodingError.Context(codingPath: path ?? pathStack, debugDescription: description)
    }
}

// MARK: - Single value

extension RecordDecoder: SingleValueDecodingContainer {
    func decodeNil() -> Bool {
        if case .json(.null) = value {
            return true
        }
        return false
    }

    func scalar<T: DecodableScalar>(_ type: T.Type) throws -> T {
        guard case .json(let json) = value else {
            throw DecodingError.typeMismatch(type, errorContext("Expected \(type), found an object or a list."))
        }
        if let scalar = T.scalar(from: json) {
            return scalar
        }
        if json.isNull {
            throw DecodingError.valueNotFound(type, errorContext("Expected \(type) but found null."))
        }
        throw DecodingError.typeMismatch(type, errorContext("Expected \(type), found \(json.kindDescription)."))
    }

    func decode(_ type: Bool.Type) throws -> Bool { try scalar(type) }
    func decode(_ type: String.Type) throws -> String { try scalar(type) }
    func decode(_ type: Double.Type) throws -> Double { try scalar(type) }
    func decode(_ type: Float.Type) throws -> Float { try scalar(type) }
    func decode(_ type: Int.Type) throws -> Int { try scalar(type) }
    func decode(_ type: Int8.Type) throws -> Int8 { try scalar(type) }
    func decode(_ type: Int16.Type) throws -> Int16 { try scalar(type) }
    func decode(_ type: Int32.Type) throws -> Int32 { try scalar(type) }
    func decode(_ type: Int64.Type) throws -> Int64 { try scalar(type) }
    func decode(_ type: UInt.Type) throws -> UInt { try scalar(type) }
    func decode(_ type: UInt8.Type) throws -> UInt8 { try scalar(type) }
    func decode(_ type: UInt16.Type) throws -> UInt16 { try scalar(type) }
    func decode(_ type: UInt32.Type) throws -> UInt32 { try scalar(type) }
    func decode(_ type: UInt64.Type) throws -> UInt64 { try scalar(type) }

    func decode<T: Decodable>(_ type: T.Type) throws -> T {
        if GraphQLJSON.isDecodedSpecially(type), case .json(let json) = value {
            guard let decoded = json.specialValue(as: type) else {
                throw DecodingError.typeMismatch(type, errorContext("The value does not fit \(type)."))
            }
            return decoded
        }
        return try T(from: self)
    }
}

/// The coding key of a list element.
///
/// Only the index is stored, and the text made when asked (for error paths): a key is made for every element
/// decoded, and one with a string would need a heap box to fit an existential and a formatted string each time.
struct IndexCodingKey: CodingKey {
    let index: Int

    var intValue: Int? {
        index
    }

    var stringValue: String {
        "Index \(index)"
    }

    init(_ index: Int) {
        self.index = index
    }

    init?(intValue: Int) {
        self.init(intValue)
    }

    init?(stringValue: String) {
        return nil
    }
}

/// A coding key made from a string, for `superDecoder()`.
struct NamedCodingKey: CodingKey {
    let stringValue: String
    var intValue: Int? { nil }

    init(_ name: String) {
        stringValue = name
    }

    init?(stringValue: String) {
        self.stringValue = stringValue
    }

    init?(intValue: Int) {
        return nil
    }
}
