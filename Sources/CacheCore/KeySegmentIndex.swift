/// An index of keys by their segment prefixes, so a clear by key prefix costs the keys it removes.
///
/// Keys such as "cardsExperienceV3.page_1.key" or "/api/accounts/123" are cut before each separator
/// ('.', '/', ':'): the key is filed under "cardsExperienceV3", then "cardsExperienceV3.page_1", then itself,
/// each node knowing its children. `keys(withPrefix:)` has plain `String.hasPrefix` semantics:
/// - a prefix on a segment boundary ("cardsExperienceV3", "cardsExperienceV3.", "/api/accounts") walks only the
///   matching subtrees: cost proportional to the keys found;
/// - a prefix that ends inside a segment ("cardsExp", "/api/acc") also scans the distinct sibling segments at
///   that level (the children of "" or of "/api"), never the whole scope unless every key sits at that level.
struct KeySegmentIndex: Sendable {
    /// Child segment prefixes of each segment prefix; the top-level segments are in `roots`.
    private var children: [String: Set<String>] = [:]
    private var roots: Set<String> = []

    static func isSeparator(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ".") || byte == UInt8(ascii: "/") || byte == UInt8(ascii: ":")
    }

    /// The nodes a key is filed under, shortest first, ending with the key itself. A separator at offset 0 does
    /// not cut (there is no empty segment prefix).
    static func segmentPrefixes(of key: String) -> [String] {
        var prefixes: [String] = []
        let utf8 = key.utf8
        var offset = 0
        for index in utf8.indices {
            if offset > 0, isSeparator(utf8[index]) {
                prefixes.append(String(key[..<index]))
            }
            offset += 1
        }
        prefixes.append(key)
        return prefixes
    }

    mutating func insert(_ key: String) {
        var parent: String?
        for prefix in Self.segmentPrefixes(of: key) {
            if let parent {
                children[parent, default: []].insert(prefix)
            } else {
                roots.insert(prefix)
            }
            parent = prefix
        }
    }

    /// Forgets `key` (already removed from the store), pruning nodes that no longer lead to a stored key.
    /// `isStored` says whether a node is itself a stored key, which keeps it alive without children.
    mutating func remove(_ key: String, isStored: (String) -> Bool) {
        let prefixes = Self.segmentPrefixes(of: key)
        for position in prefixes.indices.reversed() {
            let node = prefixes[position]
            guard children[node]?.isEmpty ?? true, !isStored(node) else {
                return
            }
            children[node] = nil
            if position > 0 {
                let parent = prefixes[position - 1]
                children[parent]?.remove(node)
                if children[parent]?.isEmpty == true {
                    children[parent] = nil
                }
            } else {
                roots.remove(node)
            }
        }
    }

    /// Every key that starts with `prefix`, found through the index (see the type's documentation for cost).
    func keys(withPrefix prefix: String, isStored: (String) -> Bool) -> [String] {
        let candidates = siblings(of: prefix).filter { $0.hasPrefix(prefix) }
        var found: [String] = []
        var pending = Array(candidates)
        while let node = pending.popLast() {
            if isStored(node) {
                found.append(node)
            }
            if let below = children[node] {
                pending.append(contentsOf: below)
            }
        }
        return found
    }

    /// The nodes at the level where `prefix` ends: children of the prefix cut before its last separator.
    private func siblings(of prefix: String) -> Set<String> {
        let utf8 = prefix.utf8
        var lastCut: String.Index?
        var offset = 0
        for index in utf8.indices {
            if offset > 0, Self.isSeparator(utf8[index]) {
                lastCut = index
            }
            offset += 1
        }
        guard let lastCut else {
            return roots
        }
        return children[String(prefix[..<lastCut])] ?? []
    }
}
