/// A shell-style glob over record keys: `*` matches any run of characters (`:` and `.` included), `?` exactly
/// one, `[abc]`, `[a-z]` and `[!abc]` (or `[^abc]`) one from or not from a set, and `\` makes the next
/// character literal. `User:*` matches `User:1` but not `AUser:1`: the whole key must match, unlike a
/// substring search.
import GraphQLLanguage

struct GlobPattern: Sendable {
    private enum Token: Sendable {
        case literal(Unicode.Scalar)
        case anyOne
        case anyRun
        case set(ranges: [ClosedRange<Unicode.Scalar>], negated: Bool)
    }

    private let tokens: [Token]
    /// The literal text before the first wildcard: keys without it are skipped with one prefix test.
    let literalPrefix: String

    init(_ pattern: String) throws(GraphQLCacheError) {
        var tokens: [Token] = []
        var scalars = Array(pattern.unicodeScalars)[...]
        while let scalar = scalars.popFirst() {
            switch scalar {
            case "*":
                if case .anyRun? = tokens.last {
                    continue
                }
                tokens.append(.anyRun)
            case "?":
                tokens.append(.anyOne)
            case "\\":
                guard let escaped = scalars.popFirst() else {
                    throw Self.invalid("ends with a lone backslash")
                }
                tokens.append(.literal(escaped))
            case "[":
                tokens.append(try Self.parseSet(&scalars))
            default:
                tokens.append(.literal(scalar))
            }
        }
        self.tokens = tokens
        var prefix = String.UnicodeScalarView()
        for token in tokens {
            guard case .literal(let scalar) = token else {
                break
            }
            prefix.append(scalar)
        }
        self.literalPrefix = String(prefix)
    }

    private static func parseSet(_ scalars: inout ArraySlice<Unicode.Scalar>) throws(GraphQLCacheError) -> Token {
        var negated = false
        if let first = scalars.first, first == "!" || first == "^" {
            negated = true
            scalars.removeFirst()
        }
        var ranges: [ClosedRange<Unicode.Scalar>] = []
        var isFirst = true
        while let scalar = scalars.popFirst() {
            if scalar == "]", !isFirst {
                return .set(ranges: ranges, negated: negated)
            }
            isFirst = false
            var lower = scalar
            if lower == "\\" {
                guard let escaped = scalars.popFirst() else {
                    break
                }
                lower = escaped
            }
            if scalars.count >= 2, scalars.first == "-", scalars.dropFirst().first != "]" {
                scalars.removeFirst()
                let upper = scalars.removeFirst()
                guard lower <= upper else {
                    throw invalid("has a reversed range in [...]")
                }
                ranges.append(lower...upper)
            } else {
                ranges.append(lower...lower)
            }
        }
        throw invalid("has an unterminated [")
    }

    private static func invalid(_ problem: String) -> GraphQLCacheError {
        GraphQLCacheError(code: .invalidPattern, message: "The record key pattern \(problem).")
    }

    /// Whether the whole of `key` matches. Linear in practice: backtracks only to the most recent `*`.
    func matches(_ key: String) -> Bool {
        guard key.hasPrefix(literalPrefix) else {
            return false
        }
        let text = Array(key.unicodeScalars)
        var textIndex = 0
        var tokenIndex = 0
        var starToken: Int?
        var starText = 0
        while textIndex < text.count {
            if tokenIndex < tokens.count {
                switch tokens[tokenIndex] {
                case .anyRun:
                    starToken = tokenIndex
                    starText = textIndex
                    tokenIndex += 1
                    continue
                case .anyOne:
                    textIndex += 1
                    tokenIndex += 1
                    continue
                case .literal(let scalar) where scalar == text[textIndex]:
                    textIndex += 1
                    tokenIndex += 1
                    continue
                case .set(let ranges, let negated)
                where ranges.contains(where: { $0.contains(text[textIndex]) }) != negated:
                    textIndex += 1
                    tokenIndex += 1
                    continue
                default:
                    break
                }
            }
            guard let star = starToken else {
                return false
            }
            tokenIndex = star + 1
            starText += 1
            textIndex = starText
        }
        while tokenIndex < tokens.count, case .anyRun = tokens[tokenIndex] {
            tokenIndex += 1
        }
        return tokenIndex == tokens.count
    }
}
