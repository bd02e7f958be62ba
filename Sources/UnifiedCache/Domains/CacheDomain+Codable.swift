extension CacheDomain: Codable {
    private enum CodingKeys: String, CodingKey {
        case name
        case summary
        case restDomains
        case restKeyPrefixes
        case restPathPatterns
        case graphQLOperations
        case typenames
        case schemaCoordinates
        case valueTags
    }

    /// Decodes and checks a domain; every member but `name` may be left out (`restDomains` then defaults to the
    /// name). A broken rule is a `DecodingError.dataCorrupted` carrying the `UnifiedCacheError` as its underlying
    /// error, so the field that is wrong is still named.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let name = try container.decode(Name.self, forKey: .name)
        func members(_ key: CodingKeys) throws -> Set<String> {
            try container.decodeIfPresent([String].self, forKey: key).map(Set.init) ?? []
        }
        do {
            try self.init(
                name: name,
                summary: container.decodeIfPresent(String.self, forKey: .summary) ?? "",
                restDomains: container.decodeIfPresent([String].self, forKey: .restDomains).map(Set.init),
                restKeyPrefixes: members(.restKeyPrefixes),
                restPathPatterns: members(.restPathPatterns),
                graphQLOperations: members(.graphQLOperations),
                typenames: members(.typenames),
                schemaCoordinates: Set(
                    container.decodeIfPresent([SchemaCoordinate].self, forKey: .schemaCoordinates) ?? []
                ),
                valueTags: members(.valueTags)
            )
        } catch let error as UnifiedCacheError {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: error.description, underlyingError: error)
            )
        }
    }

    /// Members are written sorted so that the same domain always encodes to the same bytes (diffable exports).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(summary, forKey: .summary)
        try container.encode(restDomains.sorted(), forKey: .restDomains)
        try container.encode(restKeyPrefixes.sorted(), forKey: .restKeyPrefixes)
        try container.encode(restPathPatterns.sorted(), forKey: .restPathPatterns)
        try container.encode(graphQLOperations.sorted(), forKey: .graphQLOperations)
        try container.encode(typenames.sorted(), forKey: .typenames)
        try container.encode(schemaCoordinates.sorted(), forKey: .schemaCoordinates)
        // Written only when named, so a domain without value tags encodes as it always did.
        if !valueTags.isEmpty { try container.encode(valueTags.sorted(), forKey: .valueTags) }
    }
}
