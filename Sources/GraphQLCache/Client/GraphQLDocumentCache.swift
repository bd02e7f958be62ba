import CacheCrypto
import GraphQLLanguage
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Parsed and prepared documents, kept per document text (and per typed operation), so a request never
/// parses its document twice.
///
/// Share one between the clients of every session (the facade does): a typed operation's document is
/// prepared once per process. Bounded: past ``maximumDocuments`` texts the text entries are dropped and
/// re-prepared on use (typed operations are a fixed set and stay).
public final class GraphQLDocumentCache: Sendable {
    private struct TypeKey: Hashable {
        let type: ObjectIdentifier
        let addsTypenames: Bool
    }

    private struct TextKey: Hashable {
        let document: String
        let operationName: String?
        let addsTypenames: Bool
    }

    private struct State {
        var byType: [TypeKey: PreparedDocument] = [:]
        var byText: [TextKey: PreparedDocument] = [:]
        var nextID = 0
    }

    /// How many distinct untyped document texts are kept. Default 1,000.
    public let maximumDocuments: Int
    private let parser: GraphQLParser
    private let state = Mutex(State())

    /// Creates an empty cache.
    /// - Parameters:
    ///   - maximumDocuments: distinct untyped document texts kept (at least 1).
    ///   - parser: the parser and its limits, for documents from less trusted callers.
    public init(maximumDocuments: Int = 1_000, parser: GraphQLParser = GraphQLParser()) {
        self.maximumDocuments = max(1, maximumDocuments)
        self.parser = parser
    }

    /// Documents held now (typed and untyped).
    public var count: Int {
        state.withLock { $0.byType.count + $0.byText.count }
    }

    /// Forgets every prepared document.
    public func removeAll() {
        state.withLock { state in
            state.byType.removeAll()
            state.byText.removeAll()
        }
    }

    /// The prepared document of a typed operation.
    func prepared<Operation: GraphQLOperation>(
        _ type: Operation.Type,
        addingTypenames: Bool
    ) throws(GraphQLCacheError) -> PreparedDocument {
        let key = TypeKey(type: ObjectIdentifier(type), addsTypenames: addingTypenames)
        if let known = state.withLock({ $0.byType[key] }) {
            return known
        }
        let prepared = try prepare(
            Operation.document, operationName: Operation.operationName, addingTypenames,
            isCacheableType: Operation.self is any CacheableQuery.Type)
        return state.withLock { state in
            if let raced = state.byType[key] {
                return raced
            }
            state.byType[key] = prepared
            return prepared
        }
    }

    /// The prepared document of a document text.
    func prepared(
        _ document: String,
        operationName: String?,
        addingTypenames: Bool
    ) throws(GraphQLCacheError) -> PreparedDocument {
        let key = TextKey(document: document, operationName: operationName, addsTypenames: addingTypenames)
        if let known = state.withLock({ $0.byText[key] }) {
            return known
        }
        let prepared = try prepare(document, operationName: operationName, addingTypenames)
        let maximum = maximumDocuments
        return state.withLock { state in
            if let raced = state.byText[key] {
                return raced
            }
            if state.byText.count >= maximum {
                state.byText.removeAll(keepingCapacity: true)
            }
            state.byText[key] = prepared
            return prepared
        }
    }

    /// The root field names of every known operation called `name`, for clears of queries whose variables
    /// are not known.
    func rootFieldNames(ofOperationNamed name: String) -> [String] {
        let documents = state.withLock { state in
            (Array(state.byType.values) + Array(state.byText.values)).filter { $0.keyName == name }
        }
        return documents.flatMap { document in
            document.operation.operation.selectionSet.rootFieldNames(fragments: document.operation.fragments)
        }
    }

    private func prepare(
        _ document: String,
        operationName: String?,
        _ addingTypenames: Bool,
        isCacheableType: Bool = false
    ) throws(GraphQLCacheError) -> PreparedDocument {
        let operation: GraphQLPreparedOperation
        do {
            operation = try parser.parse(document).prepare(operationName: operationName)
        } catch {
            throw GraphQLCacheError.invalidOperation(
                "The document cannot be executed: \(error.message)", underlying: error)
        }
        let sent = addingTypenames ? operation.addingTypenames() : operation
        let id = state.withLock { state in
            state.nextID += 1
            return state.nextID
        }
        return PreparedDocument(id: id, operation: sent, isCacheableType: isCacheableType)
    }
}

/// A document ready to send: the operation (with the `__typename`s the client adds) and its text.
final class PreparedDocument: Sendable {
    /// Unique per prepared document: what in-flight de-duplication compares instead of the text.
    let id: Int
    let operation: GraphQLPreparedOperation
    /// The canonical text of the operation and its fragments: what is sent.
    let text: String
    /// The operation's name, or `<anonymous>`: the first half of query keys, and the key of events.
    let keyName: String
    /// The SHA-256 of ``text`` as lowercase hex (OpenSSL's), computed once: the document's name under automatic
    /// persisted queries.
    let sha256: String
    /// Whether the typed operation this document was prepared for conforms to ``CacheableQuery`` (false for
    /// document texts): a query of any other type skips the conformance look-up for its `cacheTimeout` per call.
    let isCacheableType: Bool

    /// The query key made last and its variables: a session asking the same query again (the common case) gets it
    /// without writing the variables as canonical JSON once more.
    private let recentKey = Mutex<(variables: GraphQLJSONObject, key: GraphQLQueryKey)?>(nil)

    init(id: Int, operation: GraphQLPreparedOperation, isCacheableType: Bool = false) {
        self.id = id
        self.isCacheableType = isCacheableType
        self.operation = operation
        self.text = operation.canonicalText
        self.keyName = operation.operation.name ?? "<anonymous>"
        self.sha256 = SHA256Digest.hash(Array(text.utf8)).map { byte in
            let digits = Array("0123456789abcdef")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0f)]])
        }.joined()
    }

    var kind: GraphQLOperationDefinition.Kind {
        operation.operation.kind
    }

    /// The query key of this document's operation with `variables` (defaults filled in): the one made last when the
    /// variables are the same to the byte, else a new one, remembered.
    func queryKey(for variables: GraphQLJSONObject) -> GraphQLQueryKey {
        let known = recentKey.withLock { recent -> GraphQLQueryKey? in
            guard let recent, GraphQLJSON.isSame(.object(recent.variables), .object(variables)) else {
                return nil
            }
            return recent.key
        }
        if let known {
            return known
        }
        let key = GraphQLQueryKey(operationName: keyName, variables: variables)
        recentKey.withLock { $0 = (variables, key) }
        return key
    }
}

extension GraphQLJSON {
    /// Whether two values are written alike as JSON: `==` with member order, strings compared byte for byte (not by
    /// canonical equivalence) and numbers bit for bit (`-0.0` is not `0.0`, `1` is not `1.0`).
    static func isSame(_ lhs: GraphQLJSON, _ rhs: GraphQLJSON) -> Bool {
        switch (lhs, rhs) {
        case (.null, .null):
            return true
        case (.bool(let left), .bool(let right)):
            return left == right
        case (.int(let left), .int(let right)):
            return left == right
        case (.double(let left), .double(let right)):
            return left.bitPattern == right.bitPattern
        case (.string(let left), .string(let right)):
            return sameBytes(left, right)
        case (.array(let left), .array(let right)):
            return left.count == right.count && zip(left, right).allSatisfy { isSame($0, $1) }
        case (.object(let left), .object(let right)):
            return left.keys.count == right.keys.count
                && zip(left.keys, right.keys).allSatisfy { sameBytes($0, $1) }
                && zip(left.values, right.values).allSatisfy { isSame($0, $1) }
        default:
            return false
        }
    }

    /// Whether two strings hold the same UTF-8 bytes: their lengths, then one `memcmp` where both are contiguous
    /// (every native string), instead of a byte-by-byte walk of two iterators.
    private static func sameBytes(_ left: String, _ right: String) -> Bool {
        let count = left.utf8.count
        guard count == right.utf8.count else { return false }
        let compared = left.utf8.withContiguousStorageIfAvailable { leftBytes in
            right.utf8.withContiguousStorageIfAvailable { rightBytes in
                count == 0 || memcmp(leftBytes.baseAddress!, rightBytes.baseAddress!, count) == 0
            }
        }
        return (compared ?? nil) ?? left.utf8.elementsEqual(right.utf8)
    }
}

extension GraphQLSelectionSet {
    /// The names of the fields selected at this level, through fragments (whatever their type condition).
    func rootFieldNames(fragments: [String: GraphQLFragmentDefinition]) -> [String] {
        var names: [String] = []
        var pending = [self]
        var visited = Set<String>()
        while let selectionSet = pending.popLast() {
            for selection in selectionSet.selections {
                switch selection {
                case .field(let field) where field.name != "__typename":
                    names.append(field.name)
                case .field:
                    break
                case .inlineFragment(let fragment):
                    pending.append(fragment.selectionSet)
                case .fragmentSpread(let spread):
                    if visited.insert(spread.name).inserted, let fragment = fragments[spread.name] {
                        pending.append(fragment.selectionSet)
                    }
                }
            }
        }
        return names
    }
}
