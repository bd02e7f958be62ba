/// A request path with its ids taken out, for span attributes, log metadata and metric labels.
///
/// A segment that holds a digit, is longer than 24 characters, has more than three capitals or anything but
/// letters, `-` and `_` becomes `{id}` (`/api/accounts/acc-123/transactions` → `/api/accounts/{id}/transactions`); the query string is dropped.
/// Templates thus stay few (one per route of the upstream's API) and carry no account number or token.
public enum CacheRouteTemplate {
    public static func of(_ path: String) -> String {
        let withoutQuery = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let segments = withoutQuery.split(separator: "/", omittingEmptySubsequences: false)
        let template = segments.map { isIdentifier($0) ? "{id}" : String($0) }.joined(separator: "/")
        return template.isEmpty ? "/" : template
    }

    /// The rule of UnifiedCache's export redaction: a word is at most 24 ASCII letters, `-` or `_`, with at most
    /// three capitals; anything else is an identifier.
    private static func isIdentifier(_ segment: Substring) -> Bool {
        guard !segment.isEmpty else { return false }
        if segment.utf8.count > 24 { return true }
        var capitals = 0
        for byte in segment.utf8 {
            if byte >= 0x41 && byte <= 0x5A {
                capitals += 1
            } else if !((byte >= 0x61 && byte <= 0x7A) || byte == 0x2D || byte == 0x5F) {
                return true
            }
        }
        return capitals > 3
    }
}
