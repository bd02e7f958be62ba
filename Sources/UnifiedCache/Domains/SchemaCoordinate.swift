/// One field of one GraphQL type, written `Type.field` (a GraphQL schema coordinate, as in the RFC of that name).
///
/// Domains name fields rather than whole records when a record is shared between features: `Account.balance`
/// belongs to balances while the rest of `Account:101` belongs to the account summary, so clearing balances evicts
/// just those fields and every query reading them becomes a miss while the record stays. Root fields are written
/// with the root type's name (`Query.payments`), which removes the link from the root to the cached list.
public struct SchemaCoordinate: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The type that has the field, e.g. `Account`.
    public let typename: String
    /// The field's name, e.g. `balance` (arguments are not part of a coordinate: every stored variant goes).
    public let field: String

    /// Checks both names.
    ///
    /// - Throws: `.invalidDomain` when either is not a GraphQL name or is reserved for introspection (`__typename`).
    public init(typename: String, field: String) throws(UnifiedCacheError) {
        let text = typename + "." + field
        guard NameRules.isGraphQLName(typename), NameRules.isGraphQLName(field) else {
            throw UnifiedCacheError(
                code: .invalidDomain,
                message:
                    "expected a schema coordinate Type.field made of two GraphQL names, got \(NameRules.quoted(text))"
            )
        }
        guard !NameRules.isReservedGraphQLName(typename), !NameRules.isReservedGraphQLName(field) else {
            throw UnifiedCacheError(
                code: .invalidDomain,
                message: "\(NameRules.quoted(text)) names an introspection type or field (starting with __), "
                    + "which is never cached data"
            )
        }
        self.typename = typename
        self.field = field
    }

    /// Parses `Type.field`.
    ///
    /// - Throws: `.invalidDomain` for anything else: no dot, several dots, arguments (`Account.transactions(first:)`),
    ///   spaces, or names that are not GraphQL names.
    public init(_ text: String) throws(UnifiedCacheError) {
        let parts = text.split(separator: ".", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 2 else {
            throw UnifiedCacheError(
                code: .invalidDomain,
                message: "expected a schema coordinate Type.field (one dot), got \(NameRules.quoted(text))"
            )
        }
        try self.init(typename: String(parts[0]), field: String(parts[1]))
    }

    /// What is wrong with `text` as a coordinate, or `nil`.
    static func problem(_ text: String) -> String? {
        do {
            _ = try SchemaCoordinate(text)
            return nil
        } catch {
            return error.message
        }
    }

    /// Built-in coordinates known to be valid; checked by the tests of the built-in map.
    init(unchecked text: String) {
        let parts = text.split(separator: ".")
        typename = String(parts[0])
        field = String(parts[1])
    }

    public var description: String {
        typename + "." + field
    }

    public static func < (lhs: SchemaCoordinate, rhs: SchemaCoordinate) -> Bool {
        (lhs.typename, lhs.field) < (rhs.typename, rhs.field)
    }
}

extension SchemaCoordinate: Codable {
    /// Decodes the `Type.field` text; a malformed coordinate is a `DecodingError.dataCorrupted` carrying the
    /// `UnifiedCacheError` as its underlying error.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do {
            try self.init(text)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: error.message, underlyingError: error)
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
