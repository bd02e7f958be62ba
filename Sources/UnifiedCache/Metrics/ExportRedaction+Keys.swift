extension ExportRedaction {
    /// Characters that separate the parts of a REST key: the domain prefix's dot, path and query punctuation, and
    /// the separators RESTCache puts into variant keys.
    private static let keySeparators: Set<Character> = [
        ".", "/", ":", "?", "&", "=", ",", ";", "#", " ", "\u{1E}", "\u{1F}",
    ]

    /// A REST cache key as an export shows it: the key itself when identifiers are included, otherwise its
    /// structure with the identifiers in it replaced by their fingerprints (as ``identifier(_:)`` prints them).
    ///
    /// REST keys often carry account ids, emails or tokens (`balances.101`, `userProfile.alice@example.com`,
    /// `GET /api/accounts/101/balance`), so a key is redacted part by part:
    /// - the first part — the key's domain prefix (`balances`), or the method of a key built by a caching rule
    ///   (`GET`) — is shown;
    /// - every later part (between `.`, `/`, `:`, `?`, `&`, `=`, `,`, `;`, `#`, spaces and variant separators) is
    ///   shown only when it reads as a word: at most 24 ASCII letters, `-` or `_`, no digits, at most three
    ///   capitals (`accounts`, `page`, `me`). Anything else (`101`, `atok-101`, `page_1`) becomes `#` and its
    ///   fingerprint;
    /// - an email is one identifier, dots included: `userProfile.john.smith@bank.com` → `userProfile.#…`.
    ///
    /// So `balances.101` becomes `balances.#4b2a…`, the same fingerprint the entry's `accounts` list shows.
    /// Redacting a word that was no identifier costs readability only; the rule errs that way.
    public func restKey(_ key: String) -> String {
        guard !includesIdentifiers else { return key }
        var parts: [(separator: String, text: String)] = []
        var separator = ""
        var text = ""
        for character in key {
            if Self.keySeparators.contains(character) {
                if !text.isEmpty || parts.isEmpty {
                    parts.append((separator, text))
                    separator = ""
                    text = ""
                }
                separator.append(character)
            } else {
                text.append(character)
            }
        }
        parts.append((separator, text))
        return Self.joinedRedacting(parts, with: self)
    }

    /// A normalized record's key as an export shows it: `Account:123` → `Account:#fingerprint` (the typename
    /// helps, the id is an identifier); a key without `:` (a root, a path-based key) is shown.
    public func recordKey(_ key: String) -> String {
        guard !includesIdentifiers, let colon = key.firstIndex(of: ":") else { return key }
        return String(key[..<colon]) + ":" + identifier(String(key[key.index(after: colon)...]))
    }

    private static func joinedRedacting(
        _ parts: [(separator: String, text: String)],
        with redaction: ExportRedaction
    ) -> String {
        var result = ""
        var index = 0
        while index < parts.count {
            let part = parts[index]
            result += part.separator
            if index == 0 || part.text.isEmpty {
                result += part.text
                index += 1
                continue
            }
            // An email spans the dot-separated parts around its '@' (never the domain prefix).
            if part.text.contains("@") || emailFollows(parts, from: index) {
                var end = index
                var email = part.text
                while end + 1 < parts.count, parts[end + 1].separator == ".", !parts[end + 1].text.isEmpty,
                    email.contains("@") || emailFollows(parts, from: end + 1)
                {
                    end += 1
                    email += "." + parts[end].text
                }
                result += redaction.identifier(email)
                index = end + 1
                continue
            }
            result += isWord(part.text) ? part.text : redaction.identifier(part.text)
            index += 1
        }
        return result
    }

    /// Whether the parts from `index` on, joined by single dots, reach a part with an '@'.
    private static func emailFollows(_ parts: [(separator: String, text: String)], from index: Int) -> Bool {
        var next = index
        while next < parts.count {
            if parts[next].text.contains("@") { return true }
            guard next + 1 < parts.count, parts[next + 1].separator == "." else { return false }
            next += 1
        }
        return false
    }

    private static func isWord(_ text: String) -> Bool {
        guard text.count <= 24 else { return false }
        var capitals = 0
        for scalar in text.unicodeScalars {
            switch scalar {
            case "a"..."z", "-", "_": continue
            case "A"..."Z": capitals += 1
            default: return false
            }
        }
        return capitals <= 3
    }
}
