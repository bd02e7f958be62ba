/// Typed access to a parsed settings document, turning every mismatch into an error that names the JSON path,
/// the position and what was expected.
struct SettingsReader {
    /// Where the document came from (a file path or a caller's label), added to messages.
    let source: String?

    /// The members of an object, after refusing keys not in `allowed` (unless `allowingAnyKey`, for maps keyed by
    /// name). Keys starting with `//` are comments and are dropped, since JSON has no comment syntax of its own.
    func members(
        of node: SettingsJSON,
        at path: SettingsPath,
        allowed: [String],
        allowingAnyKey: Bool = false
    ) throws(UnifiedCacheError) -> [(key: String, value: SettingsJSON)] {
        guard case .object(let members) = node.value else {
            throw mismatch("an object", node, at: path)
        }
        var kept: [(key: String, value: SettingsJSON)] = []
        for member in members where !member.key.hasPrefix("//") {
            guard allowingAnyKey || allowed.contains(member.key) else {
                throw error(
                    "unknown setting \(NameRules.quoted(member.key)); expected one of "
                        + allowed.joined(separator: ", "),
                    at: path.appending(member.key),
                    member.value
                )
            }
            kept.append(member)
        }
        return kept
    }

    func bool(_ node: SettingsJSON, at path: SettingsPath) throws(UnifiedCacheError) -> Bool {
        guard case .bool(let value) = node.value else {
            throw mismatch("true or false", node, at: path)
        }
        return value
    }

    func string(_ node: SettingsJSON, at path: SettingsPath) throws(UnifiedCacheError) -> String {
        guard case .string(let value) = node.value else {
            throw mismatch("a string", node, at: path)
        }
        return value
    }

    /// A finite number of seconds, at least zero.
    func seconds(_ node: SettingsJSON, at path: SettingsPath) throws(UnifiedCacheError) -> Double {
        guard case .number(let lexeme) = node.value else {
            throw mismatch("a number of seconds", node, at: path)
        }
        guard let seconds = Double(lexeme), seconds.isFinite, seconds >= 0 else {
            throw error("expected a finite number of seconds ≥ 0, got \(lexeme)", at: path, node)
        }
        return seconds
    }

    /// A positive integer such as a byte count (`1e9` is accepted when it is a whole number).
    func positiveInteger(_ node: SettingsJSON, at path: SettingsPath) throws(UnifiedCacheError) -> Int {
        guard case .number(let lexeme) = node.value else {
            throw mismatch("a positive integer", node, at: path)
        }
        let value =
            Int(lexeme) ?? Double(lexeme).flatMap { $0 == $0.rounded() && abs($0) < 9e15 ? Int($0) : nil }
        guard let value, value > 0 else {
            throw error("expected a positive integer, got \(lexeme)", at: path, node)
        }
        return value
    }

    /// An array of strings, each checked by `problem` (which returns what is wrong, or `nil`, and is reported with
    /// `problemCode`).
    func strings(
        _ node: SettingsJSON,
        at path: SettingsPath,
        problemCode: UnifiedCacheError.Code = .invalidSettings,
        problem: (String) -> String?
    ) throws(UnifiedCacheError) -> [String] {
        guard case .array(let elements) = node.value else {
            throw mismatch("an array of strings", node, at: path)
        }
        var values: [String] = []
        for (index, element) in elements.enumerated() {
            let elementPath = path.appending(index: index)
            let value = try string(element, at: elementPath)
            if let problem = problem(value) {
                throw error(problem, at: elementPath, element, code: problemCode)
            }
            values.append(value)
        }
        return values
    }

    func mismatch(_ expected: String, _ node: SettingsJSON, at path: SettingsPath) -> UnifiedCacheError {
        error("expected \(expected), got \(node.kind)", at: path, node)
    }

    func error(
        _ message: String,
        at path: SettingsPath,
        _ node: SettingsJSON?,
        code: UnifiedCacheError.Code = .invalidSettings
    ) -> UnifiedCacheError {
        UnifiedCacheError(
            code: code,
            message: located(message),
            place: path.description,
            line: node?.line,
            column: node?.column
        )
    }

    /// The message with the source named, e.g. `expected a string, got a number (in /etc/ucache.json)`.
    func located(_ message: String) -> String {
        source.map { message + " (in \($0))" } ?? message
    }
}

/// A JSON path as settings errors print it: `domains.balances.schemaCoordinates[1]`; keys that are not plain names
/// are quoted (`domains["bad name"]`) so the path stays unambiguous.
struct SettingsPath: CustomStringConvertible {
    private var text: String

    static let root = SettingsPath(text: "")

    func appending(_ key: String) -> SettingsPath {
        guard NameRules.isGraphQLName(key) else {
            return SettingsPath(text: text + "[" + NameRules.quoted(key) + "]")
        }
        return SettingsPath(text: text.isEmpty ? key : text + "." + key)
    }

    func appending(index: Int) -> SettingsPath {
        SettingsPath(text: text + "[\(index)]")
    }

    var description: String {
        text.isEmpty ? "(top level)" : text
    }
}
