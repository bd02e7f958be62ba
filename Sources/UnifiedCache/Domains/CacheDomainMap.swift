/// Every cache domain of an application, by name.
///
/// The facade looks up a domain when a granular clear is called and, the other way round, finds the domains of an
/// entry or operation when it decides how long to cache it (per-domain settings). Applications start from
/// ``banking`` and extend or replace it in code or in the settings file. A map is a value: changing a copy never
/// changes what a running hub uses until the hub is given the new map.
public struct CacheDomainMap: Sendable {
    private var storage: [CacheDomain.Name: CacheDomain]
    /// Operation name → domains listing it, for per-domain policies of GraphQL queries.
    private var operationIndex: [String: Set<CacheDomain.Name>] = [:]
    /// REST domain tag → domains listing it.
    private var tagIndex: [String: Set<CacheDomain.Name>] = [:]

    /// An empty map, to build one from scratch instead of from ``banking``.
    public init() {
        storage = [:]
    }

    /// A map of `domains`.
    ///
    /// - Throws: `.duplicateDomain` when two domains share a name (merge them first if that is what you mean).
    public init(_ domains: [CacheDomain]) throws(UnifiedCacheError) {
        storage = [:]
        for domain in domains {
            try register(domain)
        }
    }

    /// The domains, sorted by name.
    public var domains: [CacheDomain] {
        storage.values.sorted { $0.name < $1.name }
    }

    /// The names, sorted.
    public var names: [CacheDomain.Name] {
        storage.keys.sorted()
    }

    public var count: Int {
        storage.count
    }

    public var isEmpty: Bool {
        storage.isEmpty
    }

    /// The domain called `name`, if any.
    public subscript(name: CacheDomain.Name) -> CacheDomain? {
        storage[name]
    }

    /// The domain called `name`.
    ///
    /// - Throws: `.unknownDomain` naming it, so a clear of a feature nobody configured fails loudly instead of
    ///   silently clearing nothing.
    public func domain(named name: CacheDomain.Name) throws(UnifiedCacheError) -> CacheDomain {
        guard let domain = storage[name] else {
            throw UnifiedCacheError(
                code: .unknownDomain,
                message: "no cache domain is called \(name); known: \(names.map(\.rawValue).joined(separator: ", "))",
                place: name.rawValue
            )
        }
        return domain
    }

    /// Adds a domain whose name is new.
    ///
    /// - Throws: `.duplicateDomain` when the name is taken; the map is unchanged.
    public mutating func register(_ domain: CacheDomain) throws(UnifiedCacheError) {
        guard storage[domain.name] == nil else {
            throw UnifiedCacheError(
                code: .duplicateDomain,
                message: "a cache domain called \(domain.name) exists already; merge or replace it instead",
                place: domain.name.rawValue
            )
        }
        store(domain)
    }

    /// Adds `domain`'s members to the domain of the same name, or adds it when the name is new: how a feature module
    /// contributes its operations or prefixes to a built-in feature.
    public mutating func merge(_ domain: CacheDomain) {
        store(storage[domain.name].map { $0.merging(domain) } ?? domain)
    }

    /// Merges every domain of `other` into this map.
    public mutating func merge(_ other: CacheDomainMap) {
        for domain in other.storage.values {
            merge(domain)
        }
    }

    /// Puts `domain` in place of the domain of the same name (or adds it) and returns the one it replaced.
    @discardableResult
    public mutating func replace(_ domain: CacheDomain) -> CacheDomain? {
        let previous = remove(named: domain.name)
        store(domain)
        return previous
    }

    /// Removes the domain called `name` and returns it.
    @discardableResult
    public mutating func remove(named name: CacheDomain.Name) -> CacheDomain? {
        guard let removed = storage.removeValue(forKey: name) else {
            return nil
        }
        for operation in removed.graphQLOperations {
            Self.unindex(name, from: &operationIndex, key: operation)
        }
        for tag in removed.restDomains {
            Self.unindex(name, from: &tagIndex, key: tag)
        }
        return removed
    }

    /// The domains listing a GraphQL operation name.
    public func domainNames(forOperation operationName: String) -> Set<CacheDomain.Name> {
        operationIndex[operationName] ?? []
    }

    /// The domains naming any of a value's tags (``CacheDomain/valueTags``).
    public func domainNames(forValueTags tags: Set<String>) -> Set<CacheDomain.Name> {
        guard !tags.isEmpty else { return [] }
        var names: Set<CacheDomain.Name> = []
        for domain in storage.values where !domain.valueTags.isDisjoint(with: tags) {
            names.insert(domain.name)
        }
        return names
    }

    /// The domains a REST entry belongs to, by its tags, key prefix or route tag (see
    /// `CacheDomain.containsRESTEntry(key:tags:)`).
    public func domainNames(forRESTKey key: String, tags: Set<String>) -> Set<CacheDomain.Name> {
        var names: Set<CacheDomain.Name> = []
        for tag in tags {
            names.formUnion(tagIndex[tag] ?? [])
        }
        for domain in storage.values where !names.contains(domain.name) {
            if domain.containsRESTEntry(key: key, tags: tags) {
                names.insert(domain.name)
            }
        }
        return names
    }

    private mutating func store(_ domain: CacheDomain) {
        if let existing = storage[domain.name] {
            for operation in existing.graphQLOperations {
                Self.unindex(domain.name, from: &operationIndex, key: operation)
            }
            for tag in existing.restDomains {
                Self.unindex(domain.name, from: &tagIndex, key: tag)
            }
        }
        storage[domain.name] = domain
        for operation in domain.graphQLOperations {
            operationIndex[operation, default: []].insert(domain.name)
        }
        for tag in domain.restDomains {
            tagIndex[tag, default: []].insert(domain.name)
        }
    }

    private static func unindex(
        _ name: CacheDomain.Name,
        from index: inout [String: Set<CacheDomain.Name>],
        key: String
    ) {
        index[key]?.remove(name)
        if index[key]?.isEmpty == true {
            index[key] = nil
        }
    }
}

extension CacheDomainMap: Hashable {
    /// Two maps are equal when they hold equal domains; the lookup indexes follow from them.
    public static func == (lhs: CacheDomainMap, rhs: CacheDomainMap) -> Bool {
        lhs.storage == rhs.storage
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(storage)
    }
}

extension CacheDomainMap: Codable {
    /// A map is written as the list of its domains sorted by name.
    public init(from decoder: any Decoder) throws {
        let domains = try decoder.singleValueContainer().decode([CacheDomain].self)
        do {
            try self.init(domains)
        } catch {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: error.description, underlyingError: error)
            )
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(domains)
    }
}
