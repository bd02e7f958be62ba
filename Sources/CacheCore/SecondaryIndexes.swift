/// The indexes that let a partition clear by domain, account, entity, key prefix or uplifted flag in time
/// proportional to the entries removed, rather than scanning the scope.
struct SecondaryIndexes: Sendable {
    private(set) var domains: [String: Set<String>] = [:]
    private(set) var accounts: [String: Set<String>] = [:]
    private(set) var entities: [String: Set<String>] = [:]
    private(set) var uplifted: Set<String> = []
    /// Built by the scope's first clear by key prefix, from the keys stored then, and kept up to date from then
    /// on: most scopes (a session's) are never cleared by prefix, and a tree for even one key costs a dictionary
    /// and two sets (a few hundred bytes per scope).
    private(set) var segments: KeySegmentIndex?

    /// Builds the key-prefix index from the keys stored now, unless it exists: the first prefix clear of the
    /// scope pays once for its keys, later ones cost what they remove.
    mutating func buildSegmentsIfNeeded(storedKeys: some Sequence<String>) {
        guard segments == nil else { return }
        var built = KeySegmentIndex()
        for key in storedKeys {
            built.insert(key)
        }
        segments = built
    }

    mutating func add(_ key: String, metadata: CacheEntryMetadata) {
        for domain in metadata.domains {
            domains[domain, default: []].insert(key)
        }
        for account in metadata.accounts {
            accounts[account, default: []].insert(key)
        }
        for entity in metadata.entityKeys {
            entities[entity, default: []].insert(key)
        }
        if metadata.isUplifted {
            uplifted.insert(key)
        }
        segments?.insert(key)
    }

    /// Forgets `key`, which the partition already removed; `isStored` answers for other keys.
    mutating func remove(_ key: String, metadata: CacheEntryMetadata, isStored: (String) -> Bool) {
        for domain in metadata.domains {
            Self.remove(key, from: domain, in: &domains)
        }
        for account in metadata.accounts {
            Self.remove(key, from: account, in: &accounts)
        }
        for entity in metadata.entityKeys {
            Self.remove(key, from: entity, in: &entities)
        }
        if metadata.isUplifted {
            uplifted.remove(key)
        }
        segments?.remove(key, isStored: isStored)
    }

    /// The stored keys a clear target selects (uplifted ones included; the caller filters). A key-prefix target
    /// needs ``buildSegmentsIfNeeded(storedKeys:)`` first; before it, no key is indexed by prefix.
    func keys(for target: ClearTarget, isStored: (String) -> Bool) -> [String] {
        switch target {
        case .domain(let domain):
            return Array(domains[domain] ?? [])
        case .account(let account):
            return Array(accounts[account] ?? [])
        case .entityKey(let entity):
            return Array(entities[entity] ?? [])
        case .keyPrefix(let prefix):
            return segments?.keys(withPrefix: prefix, isStored: isStored) ?? []
        case .uplifted:
            return Array(uplifted)
        case .scope, .predicate:
            return []
        }
    }

    private static func remove(_ key: String, from name: String, in index: inout [String: Set<String>]) {
        guard let position = index.index(forKey: name) else {
            return
        }
        index.values[position].remove(key)
        if index.values[position].isEmpty {
            index.remove(at: position)
        }
    }
}
