import CacheCore
import GraphQLLanguage

/// Walks an operation's selection over the records of one scope, under the scope's read lock: checks that
/// every selected field is there (a read with any missing field is a miss), optionally building the data, and
/// collects what a caller needs for freshness (touched records, oldest write times).
///
/// Marks every record it reaches as used (an atomic store), so reads keep records in the LRU order without the
/// write lock.
struct RecordReader {
    let records: RecordMap
    let context: SelectionContext
    let tick: UInt64
    /// Typename → field names whose write times are gathered per schema coordinate (`Account.balance`) instead
    /// of with their type: fields with a time-to-live of their own. Empty for most reads.
    let separatedFields: [String: Set<String>]
    /// Whether ``touched`` is gathered: the store's public reads report it, the client's reads (which never use
    /// it) skip a set insertion per record.
    let tracksTouched: Bool
    /// Typenames with a local time-to-live of their own: their fields' upstream hints do not apply (a local rule
    /// comes before the upstream's), so they are gathered with their type.
    let ruledTypenames: Set<String>
    /// The keys of the records reached, in order, repeats included: appended while walking and made a set once at the
    /// end, sized for them, instead of growing a set (and rehashing it) record by record.
    private var touchedKeys: [String] = []
    private(set) var oldestWrite: CacheInstant?
    /// The earliest end of an upstream `maxAge` among the fields read whose freshness it decides.
    private(set) var upstreamExpiry: CacheInstant?
    private(set) var oldestByCoordinate: [String: CacheInstant] = [:]
    private var oldestByTypenameSoFar = OldestByTypename()
    /// The typename whose oldest write is being gathered, kept out of the dictionary while consecutive records
    /// share it (a list of 2,000 transactions updates the dictionary once, not per field).
    private var currentTypename: String?
    private var currentOldest: CacheInstant?
    /// The record whose fields ``note(_:record:)`` noted last (their typename is ``currentTypename``). Unowned: the
    /// reader runs under the table's read lock, which keeps every record alive.
    private unowned(unsafe) var currentRecord: NormalizedRecord?
    private(set) var miss: (path: String, reason: GraphQLCacheMiss.Reason)?
    private var path = ResponsePath()

    init(
        records: RecordMap,
        context: SelectionContext,
        tick: UInt64,
        separatedFields: [String: Set<String>] = [:],
        ruledTypenames: Set<String> = [],
        tracksTouched: Bool = true
    ) {
        self.records = records
        self.context = context
        self.tick = tick
        self.separatedFields = separatedFields
        self.ruledTypenames = ruledTypenames
        self.tracksTouched = tracksTouched
    }

    /// The same reader with nothing gathered: what a read starts over from after a pass that gave up.
    func restarted() -> RecordReader {
        RecordReader(
            records: records, context: context, tick: tick, separatedFields: separatedFields,
            ruledTypenames: ruledTypenames, tracksTouched: tracksTouched)
    }

    /// The root record, or an empty stand-in so that a scope never written misses at its first field.
    func root(_ key: String, typename: String) -> NormalizedRecord {
        records[key]
            ?? NormalizedRecord(
                key: key,
                typename: typename,
                fields: RecordFields(),
                byteCount: 0,
                lastUse: 0,
                lastWrite: CacheInstant(nanoseconds: 0)
            )
    }

    // MARK: - Checking

    /// Whether the whole selection under `record` is cached; on `false`, `miss` says where and why.
    mutating func check(_ record: NormalizedRecord, node: SelectionNode) throws(GraphQLCacheError) -> Bool {
        guard let collected = try enter(record, node: node) else {
            return false
        }
        for field in collected.fields {
            if field.isTypename {
                guard record.typename != nil else {
                    recordMiss(at: field.responseKey, .missingField)
                    return false
                }
                continue
            }
            // By position, not by copying the stored field out: a check reads the value in place.
            guard let position = lookUpPosition(field, in: record) else {
                return false
            }
            if let child = field.child {
                path.push(.key(field.responseKey))
                guard try check(record.fields.entries[position].field.value, node: child) else {
                    return false
                }
                path.pop()
            } else if !record.fields.entries[position].field.value.isLeafValue {
                recordMiss(at: field.responseKey, .unexpectedValue)
                return false
            }
        }
        return true
    }

    mutating func check(_ value: GraphQLRecordValue, node: SelectionNode) throws(GraphQLCacheError) -> Bool {
        switch value {
        case .scalar(.null):
            return true
        case .scalar:
            recordMiss(.unexpectedValue)
            return false
        case .reference(let key):
            guard let record = records[key] else {
                recordMiss(.missingRecord(key))
                return false
            }
            return try check(record, node: node)
        case .list(let elements):
            for (index, element) in elements.enumerated() {
                path.push(.index(index))
                guard try check(element, node: node) else {
                    return false
                }
                path.pop()
            }
            return true
        }
    }

    // MARK: - Building

    /// The data under `record` in the operation's shape, or `nil` on a miss.
    mutating func build(_ record: NormalizedRecord, node: SelectionNode) throws(GraphQLCacheError)
        -> GraphQLJSONObject?
    {
        guard let collected = try enter(record, node: node) else {
            return nil
        }
        var keys: [String] = []
        var values: [GraphQLJSON] = []
        keys.reserveCapacity(collected.fields.count)
        values.reserveCapacity(collected.fields.count)
        for field in collected.fields {
            let value: GraphQLJSON
            if field.isTypename {
                guard let typename = record.typename else {
                    recordMiss(at: field.responseKey, .missingField)
                    return nil
                }
                value = .string(typename)
            } else {
                guard let stored = lookUp(field, in: record) else {
                    return nil
                }
                if let child = field.child {
                    path.push(.key(field.responseKey))
                    guard let built = try build(stored.value, node: child) else {
                        return nil
                    }
                    path.pop()
                    value = built
                } else if let leaf = stored.value.leafValue {
                    value = leaf
                } else {
                    recordMiss(at: field.responseKey, .unexpectedValue)
                    return nil
                }
            }
            keys.append(field.responseKey)
            values.append(value)
        }
        return GraphQLJSONObject(keys: keys, values: values)
    }

    private mutating func build(_ value: GraphQLRecordValue, node: SelectionNode) throws(GraphQLCacheError)
        -> GraphQLJSON?
    {
        switch value {
        case .scalar(.null):
            return .null
        case .scalar:
            recordMiss(.unexpectedValue)
            return nil
        case .reference(let key):
            guard let record = records[key] else {
                recordMiss(.missingRecord(key))
                return nil
            }
            return try build(record, node: node).map(GraphQLJSON.object)
        case .list(let elements):
            var built: [GraphQLJSON] = []
            built.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                path.push(.index(index))
                guard let value = try build(element, node: node) else {
                    return nil
                }
                path.pop()
                built.append(value)
            }
            return .array(built)
        }
    }

    // MARK: - Shared steps

    /// Marks the record used and collects its fields; `nil` (a miss) when a type condition needs a typename the
    /// record does not have.
    mutating func enter(_ record: NormalizedRecord, node: SelectionNode) throws(GraphQLCacheError)
        -> CollectedFields?
    {
        record.lastUse.store(tick, ordering: .relaxed)
        if tracksTouched {
            touchedKeys.append(record.key)
        }
        if let known = node.memoizedFields(for: record.typename) {
            return known
        }
        do {
            return try node.fields(for: record.typename, in: context)
        } catch {
            switch error {
            case .needsTypename:
                recordMiss(.missingTypename)
                return nil
            case .invalidVariables(let message):
                throw GraphQLCacheError(code: .invalidVariables, message: message + ".")
            }
        }
    }

    /// The stored field for a collected field, noting its write time; `nil` (a miss) when absent.
    private mutating func lookUp(_ field: CollectedField, in record: NormalizedRecord) -> GraphQLRecordField? {
        lookUpPosition(field, in: record).map { record.fields.entries[$0].field }
    }

    /// The position of the stored field for a collected field among the record's fields, noting its write time;
    /// `nil` (a miss) when absent.
    mutating func lookUpPosition(_ field: CollectedField, in record: NormalizedRecord) -> Int? {
        // A fixed key is taken from the field without going through the context (which would copy it).
        let key = field.fixedStorageKey ?? context.storageKey(of: field)
        guard let position = record.fields.position(of: key, hint: field.storedPosition) else {
            recordMiss(at: field.responseKey, .missingField)
            return nil
        }
        let stored = record.fields.entries[position].field
        if !separatedFields.isEmpty || !ruledTypenames.isEmpty {
            let typename = record.typename ?? ""
            if separatedFields[typename]?.contains(field.name) == true {
                noteSeparately(stored.writtenAt, coordinate: typename + "." + field.name)
                return position
            }
            if let upstreamMaxAge = stored.upstreamMaxAge, !ruledTypenames.contains(typename) {
                noteHinted(stored.writtenAt, maxAge: upstreamMaxAge)
                return position
            }
            note(stored.writtenAt, typename: typename)
        } else if let upstreamMaxAge = stored.upstreamMaxAge {
            noteHinted(stored.writtenAt, maxAge: upstreamMaxAge)
        } else {
            note(stored.writtenAt, record: record)
        }
        return position
    }

    /// Notes the write time of a field whose freshness the upstream's hint decides: it counts for ``oldestWrite``
    /// (the answer's age) but not for its type.
    mutating func noteHinted(_ instant: CacheInstant, maxAge: Double) {
        if oldestWrite.map({ instant < $0 }) ?? true {
            oldestWrite = instant
        }
        let expiry = instant.advanced(by: OutsideValue.clampedDuration(seconds: maxAge))
        if upstreamExpiry.map({ expiry < $0 }) ?? true {
            upstreamExpiry = expiry
        }
    }

    /// Notes the write time of a field gathered per coordinate: it counts for ``oldestWrite`` but not for its type.
    private mutating func noteSeparately(_ instant: CacheInstant, coordinate: String) {
        if oldestWrite.map({ instant < $0 }) ?? true {
            oldestWrite = instant
        }
        if oldestByCoordinate[coordinate].map({ instant < $0 }) ?? true {
            oldestByCoordinate[coordinate] = instant
        }
    }

    /// ``note(_:typename:)`` for a field of `record`: the typename is compared only when the record is not the
    /// one noted last (a record's fields are noted one after another).
    mutating func note(_ instant: CacheInstant, record: NormalizedRecord) {
        if record === currentRecord {
            if oldestWrite.map({ instant < $0 }) ?? true {
                oldestWrite = instant
            }
            if currentOldest.map({ instant < $0 }) ?? true {
                currentOldest = instant
            }
            return
        }
        note(instant, typename: record.typename ?? "")
        currentRecord = record
    }

    private mutating func note(_ instant: CacheInstant, typename: String) {
        currentRecord = nil
        if oldestWrite.map({ instant < $0 }) ?? true {
            oldestWrite = instant
        }
        if typename != currentTypename {
            flushTypename()
            currentTypename = typename
        }
        if currentOldest.map({ instant < $0 }) ?? true {
            currentOldest = instant
        }
    }

    private mutating func flushTypename() {
        if let currentTypename, let currentOldest {
            oldestByTypenameSoFar.lower(currentTypename, to: currentOldest)
        }
        currentOldest = nil
    }

    /// Every record the walk reached (empty unless ``tracksTouched``).
    var touched: Set<String> {
        Set(touchedKeys)
    }

    /// The oldest write time per typename among the fields read, handed over once the walk is done (the reader
    /// keeps none: moving its dictionary out, rather than copying it to add the last typename, saves a copy).
    mutating func takeOldestByTypename() -> OldestByTypename {
        flushTypename()
        currentTypename = nil
        currentRecord = nil
        defer { oldestByTypenameSoFar = OldestByTypename() }
        return oldestByTypenameSoFar
    }

    /// Records a miss at the member `responseKey` of the current path.
    mutating func recordMiss(at responseKey: String, _ reason: GraphQLCacheMiss.Reason) {
        miss = (path.dotted(appending: responseKey), reason)
    }

    /// Records a miss at the current path.
    mutating func recordMiss(_ reason: GraphQLCacheMiss.Reason) {
        miss = (path.dotted, reason)
    }
}

extension GraphQLRecordValue {
    /// Whether the value can answer a field selected without sub-selection: a scalar, or an empty list (which
    /// a list of objects and a list of scalars share).
    var isLeafValue: Bool {
        switch self {
        case .scalar: true
        case .list(let elements): elements.isEmpty
        case .reference: false
        }
    }

    /// The value as a leaf's JSON, when it is one (see `isLeafValue`).
    var leafValue: GraphQLJSON? {
        switch self {
        case .scalar(let json):
            json
        case .list(let elements) where elements.isEmpty:
            .array([])
        case .list, .reference:
            nil
        }
    }
}
