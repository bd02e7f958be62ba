/// Names the record an object of the response is stored in, so that every query returning the same object
/// shares one record (the seeds' "normalized cache with custom keys").
///
/// Feature modules provide one for their types and register it with
/// ``GraphQLCacheConfiguration/registerCacheKeyProvider(_:)``. Returning `nil` leaves the object without a key:
/// it is stored under its path in the response (`QUERY_ROOT.accounts.0`), which is the query-based behaviour of
/// the seeds (no sharing between queries).
import GraphQLLanguage

public protocol GraphQLCacheKeyProvider: Sendable {
    /// The cache key of an object, such as `Account:123`, or `nil` when this provider does not key it.
    ///
    /// - Parameters:
    ///   - typename: the object's `__typename`.
    ///   - object: the object as the response has it, members under their response keys (aliases, when the
    ///     operation uses them) and nested objects not yet normalized.
    func cacheKey(forTypename typename: String, object: GraphQLJSONObject) -> String?
}

/// The usual key: `Typename:id`, e.g. `Account:101`, from the object's `__typename` and `id`.
///
/// Ids may be strings or integers (`Account:101` either way). An object without the id member gets no key
/// from this provider.
public struct TypenameIDKeyProvider: GraphQLCacheKeyProvider {
    /// The response key holding the identifier. Default `id`.
    public let idField: String

    /// Creates a provider reading the identifier from `idField` (default `id`).
    public init(idField: String = "id") {
        self.idField = idField
    }

    public func cacheKey(forTypename typename: String, object: GraphQLJSONObject) -> String? {
        switch object[idField] {
        case .string(let id):
            return typename + ":" + id
        case .int(let id):
            return typename + ":" + String(id)
        default:
            return nil
        }
    }
}

/// A key provider made from a closure, for one-off rules.
public struct ClosureCacheKeyProvider: GraphQLCacheKeyProvider {
    private let body: @Sendable (String, GraphQLJSONObject) -> String?

    /// Wraps `body`, called with the typename and the object.
    public init(_ body: @escaping @Sendable (_ typename: String, _ object: GraphQLJSONObject) -> String?) {
        self.body = body
    }

    public func cacheKey(forTypename typename: String, object: GraphQLJSONObject) -> String? {
        body(typename, object)
    }
}
