/// Upstream `maxAge` hints by response path (`accounts.0.balance`), as a tree the normalizer descends with the
/// response: a field's hinted lifetime is the smallest `maxAge` on its path, its own and its ancestors' (the
/// header's `max-age` at the root), so a subtree fetched under a short hint never outlives it.
struct CacheHintTree: Sendable {
    /// One step of a path: a response key (alias included) or a list index.
    enum Step: Hashable, Sendable {
        case key(String)
        case index(Int)
    }

    private struct Node: Sendable {
        var maxAge: Double?
        var children: [Step: Int] = [:]
    }

    /// Node 0 is the response's `data`.
    private var nodes = [Node()]

    /// Whether no hint was added.
    var isEmpty: Bool {
        nodes.count == 1 && nodes[0].maxAge == nil
    }

    /// Adds a hint; two hints on one path keep the smaller `maxAge`.
    mutating func add(path: [Step], maxAge: Double) {
        var node = 0
        for step in path {
            if let child = nodes[node].children[step] {
                node = child
            } else {
                nodes.append(Node())
                nodes[node].children[step] = nodes.count - 1
                node = nodes.count - 1
            }
        }
        nodes[node].maxAge = min(nodes[node].maxAge ?? maxAge, maxAge)
    }

    /// Whether a hint names exactly this path.
    func hasHint(at path: [Step]) -> Bool {
        var node = 0
        for step in path {
            guard let child = nodes[node].children[step] else {
                return false
            }
            node = child
        }
        return nodes[node].maxAge != nil
    }

    /// Where the normalizer stands in the tree while it walks a response.
    struct Cursor: Sendable {
        /// The node of the current path, `nil` once the path left the hinted paths.
        var node: Int?
        /// The smallest `maxAge` on the current path so far: the hinted lifetime of a field written here.
        var maxAge: Double?
    }

    /// The cursor at the response's root, under the header's `max-age` when there is one.
    func root(headerMaxAge: Double?) -> Cursor {
        Cursor(node: 0, maxAge: Self.smaller(headerMaxAge, nodes[0].maxAge))
    }

    /// The cursor one step below `cursor`.
    func entering(_ step: Step, from cursor: Cursor) -> Cursor {
        guard let node = cursor.node, let child = nodes[node].children[step] else {
            return Cursor(node: nil, maxAge: cursor.maxAge)
        }
        return Cursor(node: child, maxAge: Self.smaller(cursor.maxAge, nodes[child].maxAge))
    }

    private static func smaller(_ lhs: Double?, _ rhs: Double?) -> Double? {
        guard let lhs else {
            return rhs
        }
        guard let rhs else {
            return lhs
        }
        return min(lhs, rhs)
    }
}
