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

    /// The node a node hangs under: the node cut before its last separator, or `nil` for a top-level segment.
    static func parent(of node: String) -> String? {
        let utf8 = node.utf8
        var index = utf8.endIndex
        while index > utf8.startIndex {
            utf8.formIndex(before: &index)
            if index > utf8.startIndex, isSeparator(utf8[index]) {
                return String(node[..<index])
            }
        }
        return nil
    }

    /// Files `key`, walking up only until it meets a node that already exists (its ancestors exist too), so a
    /// key next to existing ones costs one parent string and two hash operations.
    mutating func insert(_ key: String) {
        var node = key
        while true {
            guard let parent = Self.parent(of: node) else {
                roots.insert(node)
                return
            }
            guard children[parent, default: []].insert(node).inserted else {
                return
            }
            node = parent
        }
    }

    /// Forgets `key` (already removed from the store), pruning nodes that no longer lead to a stored key, and
    /// stopping at the first ancestor that still has other children. `isStored` says whether a node is itself a
    /// stored key, which keeps it alive without children.
    mutating func remove(_ key: String, isStored: (String) -> Bool) {
        guard children[key] == nil else {
            return  // other keys continue this one
        }
        var node = key
        while true {
            guard let parent = Self.parent(of: node) else {
                roots.remove(node)
                return
            }
            guard let position = children.index(forKey: parent) else {
                return
            }
            children.values[position].remove(node)
            guard children.values[position].isEmpty else {
                return
            }
            children.remove(at: position)
            guard !isStored(parent) else {
                return
            }
            node = parent
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
        guard let parent = Self.parent(of: prefix) else {
            return roots
        }
        return children[parent] ?? []
    }
}
