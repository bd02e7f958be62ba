import CacheCore
import RESTCache

/// Every name the caches send to the second level, derived by keyed hash (see ``SecondLevelSecret``).
///
/// - a session's namespace: the hash of its scope identity (session id and principal, as replication names a
///   session), so the same id under another principal is another namespace;
/// - the shared namespace: the hash of "shared";
/// - an entry: the hash of its namespace, kind and memory cache key;
/// - a tag: the hash of its namespace and what a clear names — a feature domain, a key prefix, an account, an
///   entity, a request path.
///
/// Namespace names are byte-identical to the previous release's (a logout on a replica not yet upgraded still
/// moves the generation every replica reads); entry and tag names are not (the namespace joined their hash), so a
/// rolling upgrade from it starts with a cold second level.
struct SecondLevelNames: Sendable {
    let secret: SecondLevelSecret
    /// The names of tags made so far (a name depends only on the secret, the namespace and the label).
    let tagNames = SecondLevelTagNames()

    /// The kind of entry: REST answers and GraphQL results live side by side in a namespace.
    enum Kind: String, Sendable {
        case rest
        case graphQL = "graphql"
        /// The value door's entries (``CachedValues``).
        case value
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
        /// A value door entry's tag.
        case valueTag(String)
        /// A value door entry's key.
        case valueKey(String)
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
        SecondLevelKey(
            namespace: namespace,
            name: secret.name("entry", [namespace.name, kind.rawValue, cacheKey]))
    }

    /// The tag of `label` in `namespace`: the same label is another tag in every namespace.
    func tag(_ label: Label, in namespace: SecondLevelNamespace) -> SecondLevelTag {
        tagNames.tag(label, in: namespace) {
            SecondLevelTag(secret.name("tag", [namespace.name, Self.text(of: label)]))
        }
    }

    private static func text(of label: Label) -> String {
        switch label {
        case .kind(let kind): return "kind\u{0}" + kind.rawValue
        case .uplifted: return "uplifted"
        case .domain(let name): return "domain\u{0}" + name
        case .keyPrefix(let prefix): return "prefix\u{0}" + prefix
        case .account(let account): return "account\u{0}" + account
        case .entity(let entity): return "entity\u{0}" + entity
        case .path(let path): return "path\u{0}" + path
        case .operation(let name): return "operation\u{0}" + name
        case .valueTag(let tag): return "valueTag\u{0}" + tag
        case .valueKey(let key): return "valueKey\u{0}" + key
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

extension SecondLevelNames.Label {
    /// The label a REST invalidation target clears.
    init(_ target: InvalidationTarget) {
        switch target {
        case .keyPrefix(let prefix): self = .keyPrefix(prefix)
        case .domain(let domain): self = .domain(domain)
        case .account(let account): self = .account(account)
        case .entityKey(let entity): self = .entity(entity)
        case .path(let path): self = .path(path)
        }
    }
}
