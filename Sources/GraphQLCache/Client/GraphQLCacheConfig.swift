/// The freshness rules of one ``GraphQLClient``: the seed's `GraphQLCacheConfig`, as a value per client
/// instead of static state, so two clients in one process (two upstreams, a test beside production code) keep
/// their own rules. Change it at run time with ``GraphQLClient/updateCacheConfig(_:)``.
///
/// A cached answer is fresh when every field it reads is within its time-to-live, counted from the field's
/// last write (by any query or mutation of the session). The time-to-live is the first of:
/// 1. the explicit `cacheTimeout:` of the `fetch` call;
/// 2. the query type's ``CacheableQuery/cacheTimeout``;
/// 3. for each field, its schema coordinate's entry in ``fieldTimeouts`` (`Account.balance`), else its type's
///    entry in ``typeTimeouts`` (`Account`);
/// 4. for each field, the upstream's hint: the smallest `maxAge` of the `Cache-Control` header and the
///    `extensions.cacheControl` hints on its path (``GraphQLRecordField/upstreamMaxAge``);
/// 5. ``defaultTimeout``.
///
/// In short: explicit query timeout > local rule > upstream hint > default (see <doc:UpstreamCacheHints>). A
/// `.useDefault` at steps 1-3 passes to the next step. With ``isTimeoutEnabled`` off nothing expires (the
/// seed's switch), whatever the other rules say.
import GraphQLLanguage

public struct GraphQLCacheConfig: Sendable, Hashable {
    /// Seconds an answer stays fresh when no other rule applies. Default 300 (five minutes), as in the seed.
    public var defaultTimeout: Double
    /// Whether answers expire at all. Default true.
    public var isTimeoutEnabled: Bool
    /// Time-to-live per typename, e.g. `["Account": 30]`: every field of an `Account` record. Default: none.
    public var typeTimeouts: [String: QueryCacheTimeout]
    /// Time-to-live per schema coordinate, e.g. `["Account.balance": 10]`, before the type's. Default: none.
    public var fieldTimeouts: [String: QueryCacheTimeout]
    /// A random extra time-to-live of at most this much (FusionCache's `JitterMaxDuration`), so answers written
    /// together do not all turn stale, and refetch, together. It lengthens only the local rules above (the query's,
    /// type, field and default timeouts), never the upstream's hints; each write draws its own extra, stable between
    /// reads (see `CacheJitter/stableExtra(forLifetime:seed:)`). Default zero: none.
    public var jitterMaxDuration: Duration = .zero
    /// When set, the extra is also at most this share of the time-to-live it lengthens (0.1 for 10 %). Default nil.
    public var jitterMaxFraction: Double?
    /// What a cache-first query does when the upstream is slow or failing, per operation name (`"AccountBalance"`):
    /// these options win over the client's ``GraphQLClient/Configuration/resilience`` where set, and a call's
    /// `resilience:` wins over them (see `CacheResilience/merged(over:)`). Changed with the rest of the rules by
    /// ``GraphQLClient/updateCacheConfig(_:)`` (a settings reload). Default: none.
    public var operationResilience: [String: CacheResilience] = [:]

    /// Creates rules; each parameter defaults to the value documented on its property.
    public init(
        defaultTimeout: Double = 300,
        isTimeoutEnabled: Bool = true,
        typeTimeouts: [String: QueryCacheTimeout] = [:],
        fieldTimeouts: [String: QueryCacheTimeout] = [:]
    ) {
        self.defaultTimeout = defaultTimeout
        self.isTimeoutEnabled = isTimeoutEnabled
        self.typeTimeouts = typeTimeouts
        self.fieldTimeouts = fieldTimeouts
    }

    /// Throws an `invalidConfiguration` error for a negative or non-finite timeout, or a field timeout whose
    /// key is not `Type.field`.
    public func validate() throws(GraphQLCacheError) {
        guard defaultTimeout.isFinite, defaultTimeout >= 0 else {
            throw Self.invalid("defaultTimeout must be finite and not negative")
        }
        for (typename, timeout) in typeTimeouts where !timeout.isValid {
            throw Self.invalid("typeTimeouts[\(typename)] must be finite and not negative")
        }
        for (coordinate, timeout) in fieldTimeouts {
            guard Self.split(coordinate) != nil else {
                throw Self.invalid(
                    "fieldTimeouts keys are schema coordinates 'Type.field', got '\(coordinate.prefix(80))'")
            }
            guard timeout.isValid else {
                throw Self.invalid("fieldTimeouts[\(coordinate)] must be finite and not negative")
            }
        }
        for (operation, resilience) in operationResilience {
            do {
                _ = try resilience.validated()
            } catch {
                throw Self.invalid("operationResilience[\(operation.prefix(80))]: \(error.message)")
            }
        }
    }

    /// `Type.field` as its two halves, or `nil` when it is not of that form.
    static func split(_ coordinate: String) -> (typename: String, field: String)? {
        let parts = coordinate.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            return nil
        }
        return (String(parts[0]), String(parts[1]))
    }

    private static func invalid(_ message: String) -> GraphQLCacheError {
        GraphQLCacheError(code: .invalidConfiguration, message: "GraphQLCacheConfig." + message + ".")
    }
}
