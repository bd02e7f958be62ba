/// The identity of a query's answer: its operation name and its variables in canonical form.
///
/// Variables are written as JSON with sorted keys (and the operation's default values filled in), so
/// `{"a":1,"b":2}` and `{"b":2,"a":1}` name the same answer. Query timestamps, in-flight de-duplication and
/// `clearCache(forQuery:)` use it.
import GraphQLLanguage

public struct GraphQLQueryKey: Sendable, Hashable, Comparable {
    /// The operation's name (`<anonymous>` for an unnamed operation).
    public let operationName: String
    /// The variables as canonical JSON text; `{}` without variables.
    public let canonicalVariables: String

    /// Creates a key from an operation name and variables (canonicalised here).
    public init(operationName: String, variables: GraphQLJSONObject = GraphQLJSONObject()) {
        self.operationName = operationName
        self.canonicalVariables = GraphQLJSON.object(variables).jsonText(sortedKeys: true)
    }

    /// `Name` without variables, `Name({"id":"101"})` with them: the text `clearCache(forQuery:)` accepts.
    /// Contains variable values (account ids and the like): log it only where those may appear.
    public var text: String {
        canonicalVariables == "{}" ? operationName : operationName + "(" + canonicalVariables + ")"
    }

    public static func < (lhs: GraphQLQueryKey, rhs: GraphQLQueryKey) -> Bool {
        (lhs.operationName, lhs.canonicalVariables) < (rhs.operationName, rhs.canonicalVariables)
    }
}

extension GraphQLQueryKey: CustomStringConvertible {
    /// The operation name only: variables may name accounts or people.
    public var description: String {
        canonicalVariables == "{}" ? operationName : operationName + "(…)"
    }
}
