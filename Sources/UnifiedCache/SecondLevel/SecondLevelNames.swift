import CacheCore

/// Every name the caches send to the second level, derived by keyed hash (see ``SecondLevelSecret``).
///
/// - a session's namespace: the hash of its scope identity (session id and principal, as replication names a
///   session), so the same id under another principal is another namespace;
/// - the shared namespace: the hash of "shared";
/// - an entry: the hash of its kind and memory cache key;
/// - a tag: the hash of what a clear names — a feature domain, a key prefix, an account, an entity, a request path.
struct SecondLevelNames: Sendable {
    let secret: SecondLevelSecret

    /// The kind of entry: REST answers and GraphQL results live side by side in a namespace.
    enum Kind: String, Sendable {
        case rest
        case graphQL = "graphql"
    }

    /// What a tag names; each is a clear of the facade.
    enum Label: Hashable, Sendable {
        case kind(Kind)
        case uplifted
        case domain(String)
        case keyPrefix(String)
        case account(String)
        case entity(String)
        case path(String)
        case operation(String)
    }

    func namespace(of scope: CacheScope) -> SecondLevelNamespace {
        switch scope {
        case .shared: return SecondLevelNamespace(secret.name("namespace", "shared"))
        case .session(let identity): return SecondLevelNamespace(secret.name("session", identity))
        }
    }

    func key(_ kind: Kind, _ cacheKey: String, in scope: CacheScope) -> SecondLevelKey {
        key(kind, cacheKey, in: namespace(of: scope))
    }

    func key(_ kind: Kind, _ cacheKey: String, in namespace: SecondLevelNamespace) -> SecondLevelKey {
        SecondLevelKey(namespace: namespace, name: secret.name("entry", kind.rawValue + "\u{0}" + cacheKey))
    }

    func tag(_ label: Label) -> SecondLevelTag {
        switch label {
        case .kind(let kind): return SecondLevelTag(secret.name("tag", "kind\u{0}" + kind.rawValue))
        case .uplifted: return SecondLevelTag(secret.name("tag", "uplifted"))
        case .domain(let name): return SecondLevelTag(secret.name("tag", "domain\u{0}" + name))
        case .keyPrefix(let prefix): return SecondLevelTag(secret.name("tag", "prefix\u{0}" + prefix))
        case .account(let account): return SecondLevelTag(secret.name("tag", "account\u{0}" + account))
        case .entity(let entity): return SecondLevelTag(secret.name("tag", "entity\u{0}" + entity))
        case .path(let path): return SecondLevelTag(secret.name("tag", "path\u{0}" + path))
        case .operation(let name): return SecondLevelTag(secret.name("tag", "operation\u{0}" + name))
        }
    }

    /// The labels a REST entry is indexed under, from its metadata and key. An uplifted entry survives every
    /// granular clear in memory, so it carries only its kind and `uplifted`. Key prefixes: those of `knownPrefixes`
    /// (the domain map's and the invalidation rules') the key starts with — the clears name no others.
    static func labels(
        ofREST metadata: CacheEntryMetadata, key: String, knownPrefixes: Set<String>
    ) -> Set<Label> {
        var labels: Set<Label> = [.kind(.rest)]
        if metadata.isUplifted {
            labels.insert(.uplifted)
            return labels
        }
        for domain in metadata.domains { labels.insert(.domain(domain)) }
        for account in metadata.accounts { labels.insert(.account(account)) }
        for entity in metadata.entityKeys { labels.insert(.entity(entity)) }
        for tag in metadata.tags where tag.hasPrefix("path:") { labels.insert(.path(String(tag.dropFirst(5)))) }
        for prefix in knownPrefixes where key.hasPrefix(prefix) { labels.insert(.keyPrefix(prefix)) }
        return labels
    }
}
