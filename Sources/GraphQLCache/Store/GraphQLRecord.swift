import CacheCore
import GraphQLLanguage

/// One normalized object as the store holds it: its fields under argument-aware storage keys.
///
/// Returned by ``GraphQLNormalizedStore/records(in:)`` and ``GraphQLNormalizedStore/record(_:in:)->GraphQLRecord?`` as a
/// snapshot for export, debugging and tests; changing it changes nothing in the store.
public struct GraphQLRecord: Sendable, Hashable {
    /// The record key of the query root: every query's top-level fields live here.
    public static let queryRootKey = "QUERY_ROOT"
    /// The record key of the mutation root: mutation results' top-level fields.
    public static let mutationRootKey = "MUTATION_ROOT"
    /// The record key of the subscription root.
    public static let subscriptionRootKey = "SUBSCRIPTION_ROOT"

    /// The cache key (`Account:123`), a path (`QUERY_ROOT.accounts.0`) or a root key.
    public var key: String
    /// The object's `__typename` as last written, when a response included it (root records default to the
    /// configured root typename). Needed for type conditions on reads and for type-wide field eviction.
    public var typename: String?
    /// Fields by storage key: the field name, plus its arguments when it has any (`account({"id":"123"})`).
    public var fields: [String: GraphQLRecordField]
    /// What the record is charged against the scope's and the process's byte limits.
    public var byteCount: Int

    /// Creates a record value.
    public init(key: String, typename: String?, fields: [String: GraphQLRecordField], byteCount: Int) {
        self.key = key
        self.typename = typename
        self.fields = fields
        self.byteCount = byteCount
    }

    /// Whether `key` is one of the three root keys.
    public static func isRootKey(_ key: String) -> Bool {
        key == queryRootKey || key == mutationRootKey || key == subscriptionRootKey
    }
}

/// A stored field: its value and when it was written (for freshness and per-type time-to-live).
public struct GraphQLRecordField: Sendable, Hashable {
    /// The normalized value.
    public var value: GraphQLRecordValue
    /// ``upstreamMaxAge`` in whole seconds, `UInt32.max` for none: declared between the value and the instant, it
    /// fills their padding, so every stored field (hinted or not) stays 40 bytes instead of 56.
    private var maxAgeSeconds: UInt32
    /// When a response last wrote this field (even with an unchanged value), on the store's clock.
    public var writtenAt: CacheInstant

    /// How long the upstream said the field may be cached, in seconds from ``writtenAt``, when the answer that
    /// wrote it said so (`Cache-Control: max-age`, or the smallest `extensions.cacheControl` hint on its path);
    /// `nil` otherwise. A later write without a hint removes it. Local rules decide first: see
    /// ``GraphQLCacheConfig`` for the precedence. Kept in whole seconds (as both hint forms give it), from 0 to
    /// about 136 years; a fraction is dropped.
    public var upstreamMaxAge: Double? {
        get { maxAgeSeconds == .max ? nil : Double(maxAgeSeconds) }
        set { maxAgeSeconds = Self.seconds(newValue) }
    }

    /// Creates a field value.
    public init(value: GraphQLRecordValue, writtenAt: CacheInstant, upstreamMaxAge: Double? = nil) {
        self.value = value
        self.maxAgeSeconds = Self.seconds(upstreamMaxAge)
        self.writtenAt = writtenAt
    }

    private static func seconds(_ maxAge: Double?) -> UInt32 {
        guard let maxAge, !maxAge.isNaN else { return .max }
        return UInt32(min(max(maxAge, 0), Double(UInt32.max - 1)))
    }
}

/// A normalized field value: a scalar, a reference to another record, or a (nested) list of either.
///
/// Objects never appear inline: every object of a response is a record of its own (under its cache key or its
/// path), so an update to it is seen by every query that reaches it.
public enum GraphQLRecordValue: Sendable, Hashable {
    /// A leaf value as the response had it (custom scalars may be lists or objects), or `null`.
    case scalar(GraphQLJSON)
    /// The key of the record holding the object.
    case reference(String)
    /// A list of values of an object-typed field (elements are references, `null`s or nested lists).
    case list([GraphQLRecordValue])

    /// Calls `body` with every record key the value references, nested lists included.
    func forEachReference(_ body: (String) -> Void) {
        switch self {
        case .scalar:
            break
        case .reference(let key):
            body(key)
        case .list(let elements):
            for element in elements {
                element.forEachReference(body)
            }
        }
    }

    /// Whether the value references `key`, directly or inside a list.
    func references(_ key: String) -> Bool {
        switch self {
        case .scalar:
            return false
        case .reference(let referenced):
            return referenced == key
        case .list(let elements):
            return elements.contains { $0.references(key) }
        }
    }
}
