/// A place in a response or a cached result: response keys and list indices.
import GraphQLLanguage

enum ResponsePathComponent {
    case key(String)
    case index(Int)
}

/// A path kept as a stack while walking, formatted only when an error or a miss needs it.
struct ResponsePath {
    private(set) var components: [ResponsePathComponent] = []

    /// An empty path; with `capacity`, room for that many components (no allocation until the first push
    /// without it: a read that checks while it decodes pushes only when it checks what the decode did not reach).
    init(reserving capacity: Int = 0) {
        if capacity > 0 {
            components.reserveCapacity(capacity)
        }
    }

    mutating func push(_ component: ResponsePathComponent) {
        components.append(component)
    }

    mutating func pop() {
        components.removeLast()
    }

    /// `accounts.0.balance`.
    var dotted: String {
        components.map { component in
            switch component {
            case .key(let key): key
            case .index(let index): String(index)
            }
        }.joined(separator: ".")
    }

    /// The list indices at the end of the path (those below the innermost key), for path-based record keys.
    var trailingIndices: ArraySlice<ResponsePathComponent> {
        let start = components.lastIndex { if case .key = $0 { true } else { false } }.map { $0 + 1 } ?? 0
        return components[start...]
    }

    /// The path with `last` appended, formatted; for an error about a member not yet pushed.
    func dotted(appending last: String) -> String {
        components.isEmpty ? last : dotted + "." + last
    }
}
