/// What `clearCache(forQuery:)` was given: one query key's text, or an operation name.
import GraphQLLanguage

struct QuerySelector {
    let operationName: String
    /// The canonical variables of a full key; `nil` for an operation name (every key of it matches).
    let canonicalVariables: String?

    /// Reads `Name({"id":"101"})` (members in any order) as a key, anything else as an operation name.
    init(_ text: String) {
        // A bare operation name (what a domain clear passes) has no `(` byte, and then no `(` character either:
        // that answer costs one pass over its bytes instead of a walk over its characters.
        if !Self.hasOpeningParenthesis(text) {
            operationName = text
            canonicalVariables = nil
        } else if let open = text.firstIndex(of: "("), text.hasSuffix(")"),
            let variables = try? GraphQLJSON(
                parsing: String(text[text.index(after: open)..<text.index(before: text.endIndex)])),
            let object = variables.objectValue
        {
            operationName = String(text[..<open])
            canonicalVariables = GraphQLJSON.object(object).jsonText(sortedKeys: true)
        } else {
            operationName = text
            canonicalVariables = nil
        }
    }

    private static func hasOpeningParenthesis(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.contains(UInt8(ascii: "(")) }
            ?? text.utf8.contains(UInt8(ascii: "("))
    }

    func matches(_ key: GraphQLQueryKey) -> Bool {
        key.operationName == operationName && (canonicalVariables.map { $0 == key.canonicalVariables } ?? true)
    }
}

/// Reading the arguments back out of a storage key such as `transactions({"accountId":"101","first":20})`.
enum StorageKeyArguments {
    /// The field name: the storage key up to its arguments.
    static func fieldName(of storageKey: String) -> String {
        guard let open = storageKey.firstIndex(of: "(") else {
            return storageKey
        }
        return String(storageKey[..<open])
    }

    /// Whether any string among the arguments (at any depth) is `value`.
    static func mention(_ value: String, in storageKey: String) -> Bool {
        guard let open = storageKey.firstIndex(of: "("), storageKey.hasSuffix(")"),
            storageKey.contains(value)
        else {
            return false
        }
        let text = storageKey[storageKey.index(after: open)..<storageKey.index(before: storageKey.endIndex)]
        guard let arguments = try? GraphQLJSON(parsing: String(text)) else {
            return false
        }
        return arguments.mentions(value)
    }
}

extension GraphQLJSON {
    /// Whether `value` is one of the strings of this value, at any depth.
    func mentions(_ value: String) -> Bool {
        switch self {
        case .string(let string): string == value
        case .array(let elements): elements.contains { $0.mentions(value) }
        case .object(let object): object.mentions(value)
        case .null, .bool, .int, .double: false
        }
    }
}

extension GraphQLJSONObject {
    /// Whether `value` is one of the strings among the members' values, at any depth.
    func mentions(_ value: String) -> Bool {
        values.contains { $0.mentions(value) }
    }
}
