/// How a normalized store names records and matches fragments: its cache key providers and the schema facts it
/// cannot learn from responses (which concrete types an interface or union covers).
///
/// A value given to each ``GraphQLNormalizedStore`` at creation, never global state: two stores in one process
/// (two upstreams, or a test next to production code) can normalize differently.
///
/// ```swift
/// var configuration = GraphQLCacheConfiguration()
/// configuration.registerCacheKeyProvider(TypenameIDKeyProvider())
/// configuration.possibleTypes = ["Node": ["Account", "Transaction"], "SearchResult": ["Account", "Payee"]]
/// let store = try GraphQLNormalizedStore(cacheConfiguration: configuration)
/// ```
import GraphQLLanguage

public struct GraphQLCacheConfiguration: Sendable {
    /// Interface and union names → the concrete typenames they cover, for fragments such as `... on Node`.
    ///
    /// Without an entry, a type condition matches only the typename it names. Default: empty.
    public var possibleTypes: [String: Set<String>]
    /// The typename of the query root, used for type conditions on the root object when the response does not
    /// say. Default `Query`.
    public var queryTypename: String
    /// The typename of the mutation root. Default `Mutation`.
    public var mutationTypename: String
    /// The typename of the subscription root. Default `Subscription`.
    public var subscriptionTypename: String

    private var providersByTypename: [String: [any GraphQLCacheKeyProvider]] = [:]
    private var defaultProviders: [any GraphQLCacheKeyProvider] = []

    /// A configuration without key providers: every object is stored under its response path (query-based
    /// caching, as in the seeds before keys are registered).
    public init(
        possibleTypes: [String: Set<String>] = [:],
        queryTypename: String = "Query",
        mutationTypename: String = "Mutation",
        subscriptionTypename: String = "Subscription"
    ) {
        self.possibleTypes = possibleTypes
        self.queryTypename = queryTypename
        self.mutationTypename = mutationTypename
        self.subscriptionTypename = subscriptionTypename
    }

    /// A configuration keying every object that has an `id` as `Typename:id` (``TypenameIDKeyProvider``).
    public static func typenameAndID(possibleTypes: [String: Set<String>] = [:]) -> GraphQLCacheConfiguration {
        var configuration = GraphQLCacheConfiguration(possibleTypes: possibleTypes)
        configuration.registerCacheKeyProvider(TypenameIDKeyProvider())
        return configuration
    }

    /// Adds a provider asked for objects of every type, after the providers registered for the object's type
    /// and after the providers registered before it (the seed's order: first non-nil key wins).
    public mutating func registerCacheKeyProvider(_ provider: any GraphQLCacheKeyProvider) {
        defaultProviders.append(provider)
    }

    /// Adds a provider asked only for objects of the given types, before any provider registered for all types.
    public mutating func registerCacheKeyProvider(_ provider: any GraphQLCacheKeyProvider, forTypenames: [String]) {
        for typename in forTypenames {
            providersByTypename[typename, default: []].append(provider)
        }
    }

    /// Whether any provider is registered. With providers, every object of a response must carry `__typename`.
    public var hasCacheKeyProviders: Bool {
        !defaultProviders.isEmpty || !providersByTypename.isEmpty
    }

    /// The first key the registered providers give for the object, type-specific providers first; `nil` when
    /// none keys it.
    public func cacheKey(forTypename typename: String, object: GraphQLJSONObject) -> String? {
        if let specific = providersByTypename[typename] {
            for provider in specific {
                if let key = provider.cacheKey(forTypename: typename, object: object) {
                    return key
                }
            }
        }
        for provider in defaultProviders {
            if let key = provider.cacheKey(forTypename: typename, object: object) {
                return key
            }
        }
        return nil
    }

    /// Whether a fragment with type condition `condition` applies to an object of type `typename`.
    public func typeCondition(_ condition: String, matches typename: String) -> Bool {
        condition == typename || possibleTypes[condition]?.contains(typename) == true
    }

    /// The root typename of an operation kind.
    func rootTypename(of kind: GraphQLOperationDefinition.Kind) -> String {
        switch kind {
        case .query: queryTypename
        case .mutation: mutationTypename
        case .subscription: subscriptionTypename
        }
    }
}
