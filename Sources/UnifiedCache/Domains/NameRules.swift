/// The spelling rules for names in domains and settings, checked on the UTF-8 bytes (no regular expressions, no
/// Foundation) because domain maps are validated on every settings reload.
enum NameRules {
    /// A GraphQL `Name` (`/[_A-Za-z][_0-9A-Za-z]*/`, spec section 2.1.9).
    static func isGraphQLName(_ text: String) -> Bool {
        var bytes = text.utf8.makeIterator()
        guard let first = bytes.next(), isNameStart(first) else {
            return false
        }
        while let byte = bytes.next() {
            guard isNameStart(byte) || isDigit(byte) else {
                return false
            }
        }
        return true
    }

    /// Names starting with `__` are reserved for introspection (`__typename`, `__Schema`) and are never cached data.
    static func isReservedGraphQLName(_ text: String) -> Bool {
        text.utf8.starts(with: "__".utf8)
    }

    /// Whether `text` has a character that would break a log line, an environment variable or a key: control
    /// characters (including newlines and tabs) and spaces at either end.
    static func hasUnsafeCharacters(_ text: String) -> Bool {
        if text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            return true
        }
        return text.first?.isWhitespace == true || text.last?.isWhitespace == true
    }

    /// The text quoted for an error message, cut to `limit` characters so that a pasted blob does not flood a log.
    static func quoted(_ text: String, limit: Int = 40) -> String {
        var escaped = ""
        for scalar in text.unicodeScalars.prefix(limit) {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case "\n": escaped += "\\n"
            case "\t": escaped += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    escaped += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    escaped.unicodeScalars.append(scalar)
                }
            }
        }
        let suffix = text.unicodeScalars.count > limit ? "…" : ""
        return "\"" + escaped + suffix + "\""
    }

    private static func isNameStart(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || byte == UInt8(ascii: "_")
    }

    private static func isDigit(_ byte: UInt8) -> Bool {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
    }
}
