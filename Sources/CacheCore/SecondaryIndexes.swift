/// The indexes that let a partition clear by domain, account, entity, key prefix or uplifted flag in time
/// proportional to the entries removed, rather than scanning the scope.
///
/// Kept only once the partition holds more than `KeyIndex.scanLimit` entries (see `CachePartition.isIndexed`);
/// a smaller partition finds a clear's entries by scanning them with ``selects(_:key:metadata:)``, which
/// answers exactly what the indexes would.
struct SecondaryIndexes: Sendable {
    /// A domain, account or entity name with its kind: one table for the three kinds, one word per scope each
    /// kind would otherwise take.
    private struct Tag: Hashable, Sendable {
        enum Kind: UInt8 {
            case domain, account, entity
        }

        let kind: Kind
        let name: String
    }

    private var tagged: [Tag: Set<String>] = [:]
    private var uplifted: Set<String> = []
    /// Built by the scope's first clear by key prefix, from the keys stored then, and kept up to date from then
    /// on: most scopes (a session's) are never cleared by prefix, and a tree for even one key costs a dictionary
    /// and two sets (a few hundred bytes per scope). Boxed, so the scopes without one pay a word, not two.
    private var segments: SegmentsBox?

    /// Builds the key-prefix index from the keys stored now, unless it exists: the first prefix clear of the
    /// scope pays once for its keys, later ones cost what they remove.
    mutating func buildSegmentsIfNeeded(storedKeys: some Sequence<String>) {
        guard segments == nil else { return }
        var built = KeySegmentIndex()
        for key in storedKeys {
            built.insert(key)
        }
        segments = SegmentsBox(built)
    }

    /// Changes the key-prefix index in place, if built; copies it first when another copy of these indexes
    /// shares its box (value semantics, as if it were stored inline).
    private mutating func updateSegments(_ body: (inout KeySegmentIndex) -> Void) {
        guard segments != nil else {
            return
        }
        if !isKnownUniquelyReferenced(&segments) {
            segments = SegmentsBox(segments!.index)
        }
        body(&segments!.index)
    }

    mutating func add(_ key: String, metadata: CacheEntryMetadata) {
        Self.forEachTag(of: metadata) { tag in
            tagged[tag, default: []].insert(key)
        }
        if metadata.isUplifted {
            uplifted.insert(key)
        }
        updateSegments { $0.insert(key) }
    }

    /// Forgets `key`, which the partition already removed; `isStored` answers for other keys.
    mutating func remove(_ key: String, metadata: CacheEntryMetadata, isStored: (String) -> Bool) {
        Self.forEachTag(of: metadata) { tag in
            guard let position = tagged.index(forKey: tag) else {
                return
            }
            tagged.values[position].remove(key)
            if tagged.values[position].isEmpty {
                tagged.remove(at: position)
            }
        }
        if metadata.isUplifted {
            uplifted.remove(key)
        }
        updateSegments { $0.remove(key, isStored: isStored) }
    }

    /// The stored keys a clear target selects (uplifted ones included; the caller filters). A key-prefix target
    /// needs ``buildSegmentsIfNeeded(storedKeys:)`` first; before it, no key is indexed by prefix.
    func keys(for target: ClearTarget, isStored: (String) -> Bool) -> [String] {
        switch target {
        case .domain(let domain):
            return Array(tagged[Tag(kind: .domain, name: domain)] ?? [])
        case .account(let account):
            return Array(tagged[Tag(kind: .account, name: account)] ?? [])
        case .entityKey(let entity):
            return Array(tagged[Tag(kind: .entity, name: entity)] ?? [])
        case .keyPrefix(let prefix):
            return segments?.index.keys(withPrefix: prefix, isStored: isStored) ?? []
        case .uplifted:
            return Array(uplifted)
        case .scope, .predicate:
            return []
        }
    }

    /// Whether `target` selects an entry stored under `key` with `metadata`: what ``keys(for:isStored:)`` would
    /// answer, for a partition small enough to scan instead of indexing.
    static func selects(_ target: ClearTarget, key: String, metadata: CacheEntryMetadata) -> Bool {
        switch target {
        case .domain(let domain):
            return metadata.domains.contains(domain)
        case .account(let account):
            return metadata.accounts.contains(account)
        case .entityKey(let entity):
            return metadata.entityKeys.contains(entity)
        case .keyPrefix(let prefix):
            return key.hasPrefix(prefix)
        case .uplifted:
            return metadata.isUplifted
        case .scope, .predicate:
            return false
        }
    }

    private static func forEachTag(of metadata: CacheEntryMetadata, _ body: (Tag) -> Void) {
        for domain in metadata.domains {
            body(Tag(kind: .domain, name: domain))
        }
        for account in metadata.accounts {
            body(Tag(kind: .account, name: account))
        }
        for entity in metadata.entityKeys {
            body(Tag(kind: .entity, name: entity))
        }
    }
}

/// The heap home of a partition's key-prefix index.
///
/// `@unchecked Sendable` is sound: the box is reachable only through a `SecondaryIndexes` value, which is changed
/// only under its partition's stripe lock, and `SecondaryIndexes.updateSegments` copies the box before changing
/// it whenever another value shares it, so no two values ever see each other's changes; a box is never handed out.
private final class SegmentsBox: @unchecked Sendable {
    var index: KeySegmentIndex

    init(_ index: KeySegmentIndex) {
        self.index = index
    }
}
