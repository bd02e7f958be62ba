import RESTCache

/// A feature's name and everything cached for it, on both sides of the facade.
///
/// The seeds clear caches feature by feature (`clearBalancesCache()`, `clearPayeesCache()`, …). With REST and
/// GraphQL behind one facade, a feature's data lives in several shapes — REST entries tagged with the feature or
/// keyed under a prefix, GraphQL operations, whole normalized records, single fields of shared records — and a
/// domain lists them all so one clear reaches every shape. A domain is a plain value: it is checked when it is
/// built and never changes afterwards.
public struct CacheDomain: Hashable, Sendable {
    /// The feature's name, e.g. `balances`.
    public let name: Name
    /// One line for people reading an export or the settings: what the feature shows.
    public let summary: String
    /// The domain tags REST entries of the feature carry (`Cacheable.domains`); by default just the name.
    public let restDomains: Set<String>
    /// Prefixes of REST cache keys of the feature, e.g. `"balances."` for `"balances.101"` (plain `hasPrefix`, so end
    /// a prefix with its separator to keep `"balances."` from matching `"balancesHistory.1"`).
    public let restKeyPrefixes: Set<String>
    /// Upstream REST routes whose answers belong to the feature, as `PathPattern` text (`"/api/accounts/*/balance"`),
    /// so responses fetched without an explicit `Cacheable.domains` can be tagged by route.
    public let restPathPatterns: Set<String>
    /// GraphQL operation names of the feature (`"AccountBalance"`): their cached results and timestamps go.
    public let graphQLOperations: Set<String>
    /// GraphQL types whose records belong to the feature as a whole (`"Card"`): every record of the type goes.
    public let typenames: Set<String>
    /// Fields evicted one by one from records shared with other features (`Account.balance`).
    public let schemaCoordinates: Set<SchemaCoordinate>
    /// Tags of the value door's entries (``CachedValues``) that belong to the feature: a clear of the domain
    /// removes the session's values tagged with any of them.
    public let valueTags: Set<String>
    /// `restPathPatterns` compiled once, in sorted order.
    let pathPatterns: [PathPattern]

    /// Checks every member.
    ///
    /// - Parameters:
    ///   - name: the feature's name (`balances`).
    ///   - summary: one line for people reading exports and settings.
    ///   - restDomains: the tags of the domain's REST entries; `nil` (the default) means its name.
    ///   - restKeyPrefixes: REST keys that belong to the domain by prefix (`balances.`).
    ///   - restPathPatterns: GET routes whose answers belong to the domain (`/api/accounts/*/balance`).
    ///   - graphQLOperations: operation names whose results belong to the domain (`AccountBalance`).
    ///   - typenames: GraphQL types whose records belong to it as a whole (`Card`).
    ///   - schemaCoordinates: fields evicted one by one from shared records (`Account.balance`).
    ///   - valueTags: tags of the value door's entries that belong to the domain (`accounts`).
    /// - Throws: `.invalidDomain` naming the field (`balances.restKeyPrefixes`) when a tag or prefix is empty or has
    ///   control characters, a path pattern does not start with `/`, an operation or typename is not a GraphQL name,
    ///   or the domain would contain nothing at all.
    public init(
        name: Name,
        summary: String = "",
        restDomains: Set<String>? = nil,
        restKeyPrefixes: Set<String> = [],
        restPathPatterns: Set<String> = [],
        graphQLOperations: Set<String> = [],
        typenames: Set<String> = [],
        schemaCoordinates: Set<SchemaCoordinate> = [],
        valueTags: Set<String> = []
    ) throws(UnifiedCacheError) {
        self.init(
            unchecked: name,
            summary: summary,
            restDomains: restDomains ?? [name.rawValue],
            restKeyPrefixes: restKeyPrefixes,
            restPathPatterns: restPathPatterns,
            graphQLOperations: graphQLOperations,
            typenames: typenames,
            schemaCoordinates: schemaCoordinates,
            valueTags: valueTags
        )
        try validate()
    }

    /// Takes the members as they are; `validate()` must follow unless they are known to be valid.
    init(
        unchecked name: Name,
        summary: String,
        restDomains: Set<String>,
        restKeyPrefixes: Set<String>,
        restPathPatterns: Set<String>,
        graphQLOperations: Set<String>,
        typenames: Set<String>,
        schemaCoordinates: Set<SchemaCoordinate>,
        valueTags: Set<String> = []
    ) {
        self.name = name
        self.summary = summary
        self.restDomains = restDomains
        self.restKeyPrefixes = restKeyPrefixes
        self.restPathPatterns = restPathPatterns
        self.graphQLOperations = graphQLOperations
        self.typenames = typenames
        self.schemaCoordinates = schemaCoordinates
        self.valueTags = valueTags
        pathPatterns = restPathPatterns.sorted().map { PathPattern($0) }
    }

    /// Whether the domain selects nothing on either side.
    public var isEmpty: Bool {
        restDomains.isEmpty && restKeyPrefixes.isEmpty && restPathPatterns.isEmpty && graphQLOperations.isEmpty
            && typenames.isEmpty && schemaCoordinates.isEmpty && valueTags.isEmpty
    }

    /// The domain with `other`'s members added (its name and, when this one has none, its summary kept): how a
    /// settings file or a feature module extends a built-in domain without restating it.
    public func merging(_ other: CacheDomain) -> CacheDomain {
        CacheDomain(
            unchecked: name,
            summary: summary.isEmpty ? other.summary : summary,
            restDomains: restDomains.union(other.restDomains),
            restKeyPrefixes: restKeyPrefixes.union(other.restKeyPrefixes),
            restPathPatterns: restPathPatterns.union(other.restPathPatterns),
            graphQLOperations: graphQLOperations.union(other.graphQLOperations),
            typenames: typenames.union(other.typenames),
            schemaCoordinates: schemaCoordinates.union(other.schemaCoordinates),
            valueTags: valueTags.union(other.valueTags)
        )
    }

    /// Whether a REST entry with this key and these tags belongs to the domain: a domain tag in common, a key
    /// prefix, or a `path:<path>` tag (RESTCache's tag of the route an entry was fetched from) matching a path pattern
    /// for `GET`.
    public func containsRESTEntry(key: String, tags: Set<String>) -> Bool {
        if !restDomains.isDisjoint(with: tags) || restKeyPrefixes.contains(where: { key.hasPrefix($0) }) {
            return true
        }
        return containsRESTRoute(
            method: "GET", paths: tags.lazy.filter { $0.hasPrefix("path:") }.map { $0.dropFirst(5) })
    }

    /// Whether a request to this route fetches data of the domain.
    public func containsRESTRoute(method: String, path: String) -> Bool {
        pathPatterns.contains { $0.matches(method: method, path: path) }
    }

    private func containsRESTRoute(method: String, paths: some Sequence<Substring>) -> Bool {
        guard !pathPatterns.isEmpty else {
            return false
        }
        return paths.contains { containsRESTRoute(method: method, path: String($0)) }
    }

    /// Whether a record of this type, or this field of it, belongs to the domain.
    public func containsGraphQLField(typename: String, field: String) -> Bool {
        typenames.contains(typename) || schemaCoordinates.contains { $0.typename == typename && $0.field == field }
    }
}

extension CacheDomain {
    /// Throws the first broken rule, naming the field as `<domain>.<field>`.
    public func validate() throws(UnifiedCacheError) {
        let prefix = name.rawValue + "."
        for tag in restDomains.sorted() {
            try Self.check(Self.problem(restDomain: tag), at: prefix + "restDomains")
        }
        for keyPrefix in restKeyPrefixes.sorted() {
            try Self.check(Self.problem(restKeyPrefix: keyPrefix), at: prefix + "restKeyPrefixes")
        }
        for pattern in restPathPatterns.sorted() {
            try Self.check(Self.problem(restPathPattern: pattern), at: prefix + "restPathPatterns")
        }
        for operation in graphQLOperations.sorted() {
            try Self.check(Self.problem(operationName: operation), at: prefix + "graphQLOperations")
        }
        for typename in typenames.sorted() {
            try Self.check(Self.problem(typename: typename), at: prefix + "typenames")
        }
        for tag in valueTags.sorted() {
            try Self.check(Self.problem(valueTag: tag), at: prefix + "valueTags")
        }
        guard !isEmpty else {
            throw UnifiedCacheError(
                code: .invalidDomain,
                message: "domain \(name) selects nothing: give it REST domains, key prefixes, path patterns, "
                    + "operations, typenames, schema coordinates or value tags",
                place: name.rawValue
            )
        }
    }

    private static func check(_ problem: String?, at place: String) throws(UnifiedCacheError) {
        if let problem {
            throw UnifiedCacheError(code: .invalidDomain, message: problem, place: place)
        }
    }

    /// What is wrong with a REST domain tag, or `nil`.
    static func problem(restDomain tag: String) -> String? {
        if tag.isEmpty {
            return "expected a non-empty REST domain tag"
        }
        return NameRules.hasUnsafeCharacters(tag)
            ? "expected a REST domain tag without control characters or surrounding spaces, got "
                + NameRules.quoted(tag)
            : nil
    }

    /// What is wrong with a value door tag, or `nil`.
    static func problem(valueTag tag: String) -> String? {
        if tag.isEmpty {
            return "expected a non-empty value tag"
        }
        return NameRules.hasUnsafeCharacters(tag)
            ? "expected a value tag without control characters or surrounding spaces, got " + NameRules.quoted(tag)
            : nil
    }

    /// What is wrong with a REST key prefix, or `nil`. An empty prefix would match every key of the session.
    static func problem(restKeyPrefix prefix: String) -> String? {
        if prefix.isEmpty {
            return "expected a non-empty key prefix (an empty one would select every REST entry)"
        }
        return NameRules.hasUnsafeCharacters(prefix)
            ? "expected a key prefix without control characters or surrounding spaces, got \(NameRules.quoted(prefix))"
            : nil
    }

    /// What is wrong with a path pattern, or `nil`: `"/path"` or `"METHOD /path"`, no query, no spaces in the path.
    static func problem(restPathPattern pattern: String) -> String? {
        let parts = pattern.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: false)
        let path = parts.count == 2 ? parts[1] : parts[0]
        let methodIsValid =
            parts.count == 1 || (!parts[0].isEmpty && parts[0].allSatisfy { $0.isASCII && $0.isUppercase })
        let pathIsValid =
            path.hasPrefix("/") && !path.contains(where: { $0 == " " || $0 == "?" || $0 == "#" })
            && !NameRules.hasUnsafeCharacters(String(path))
        guard methodIsValid, pathIsValid else {
            return "expected a path pattern \"/path\" or \"METHOD /path\" (no query), got \(NameRules.quoted(pattern))"
        }
        return nil
    }

    /// What is wrong with an operation name, or `nil`.
    static func problem(operationName: String) -> String? {
        NameRules.isGraphQLName(operationName)
            ? nil : "expected a GraphQL operation name ([_A-Za-z][_0-9A-Za-z]*), got \(NameRules.quoted(operationName))"
    }

    /// What is wrong with a typename, or `nil`.
    static func problem(typename: String) -> String? {
        guard NameRules.isGraphQLName(typename) else {
            return "expected a GraphQL type name ([_A-Za-z][_0-9A-Za-z]*), got \(NameRules.quoted(typename))"
        }
        return NameRules.isReservedGraphQLName(typename)
            ? "\(NameRules.quoted(typename)) is an introspection type (starting with __), which is never cached data"
            : nil
    }
}
