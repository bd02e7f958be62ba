/// A glob over `"METHOD /path"` or `"/path"`: `*` matches within one path segment, `**` matches anything
/// (across segments). `"POST /api/payments"`, `"/api/accounts/*/balance"`, `"/api/cards/**"`.
public struct PathPattern: Hashable, Sendable, ExpressibleByStringLiteral, CustomStringConvertible {
    /// The method the pattern requires, if it names one.
    public let method: String?
    private let segments: [Substring]
    public let description: String

    public init(_ text: String) {
        description = text
        let parts = text.split(separator: " ", maxSplits: 1)
        if parts.count == 2 {
            method = parts[0].uppercased()
            segments = parts[1].split(separator: "/", omittingEmptySubsequences: false)
        } else {
            method = nil
            segments = text.split(separator: "/", omittingEmptySubsequences: false)
        }
    }

    public init(stringLiteral value: String) { self.init(value) }

    /// Whether a request's method and path (no query) match.
    public func matches(method: String, path: String) -> Bool {
        if let required = self.method, required != method.uppercased() { return false }
        let pathSegments = path.split(separator: "/", omittingEmptySubsequences: false)
        return Self.match(segments[...], pathSegments[...])
    }

    private static func match(_ pattern: ArraySlice<Substring>, _ path: ArraySlice<Substring>) -> Bool {
        guard let head = pattern.first else { return path.isEmpty }
        if head == "**" {
            let rest = pattern.dropFirst()
            if rest.isEmpty { return true }
            for start in path.indices where match(rest, path[start...]) { return true }
            return match(rest, path[path.endIndex...])
        }
        guard let segment = path.first, glob(head, segment) else { return false }
        return match(pattern.dropFirst(), path.dropFirst())
    }

    /// `*` within a segment: any run of characters.
    private static func glob(_ pattern: Substring, _ text: Substring) -> Bool {
        guard let star = pattern.firstIndex(of: "*") else { return pattern == text }
        let prefix = pattern[..<star]
        guard text.hasPrefix(prefix) else { return false }
        let rest = pattern[pattern.index(after: star)...]
        var remainder = text.dropFirst(prefix.count)
        while true {
            if glob(rest, remainder) { return true }
            guard !remainder.isEmpty else { return false }
            remainder = remainder.dropFirst()
        }
    }
}
