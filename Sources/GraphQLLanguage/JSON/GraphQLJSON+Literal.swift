extension GraphQLJSON {
    /// The JSON value of an argument literal, with variables taken from `variables`.
    ///
    /// This is how argument-aware storage keys see arguments: `account(id: $id)` with `{"id": "123"}` and
    /// `account(id: "123")` have the same value. Enum values become strings, as they are in responses.
    /// Returns `nil` when the literal is a variable the request does not provide (GraphQL then treats the
    /// argument as absent); inside a list such a variable is `null`, inside an input object the member is left
    /// out, as the specification's input coercion does.
    public init?(resolving literal: GraphQLValueLiteral, variables: GraphQLJSONObject) {
        switch literal {
        case .variable(let name):
            guard let value = variables[name] else {
                return nil
            }
            self = value
        case .int(let value, let lexeme):
            if let value {
                self = .int(Int64(value))
            } else {
                self = .double(Double(lexeme) ?? .nan)
            }
        case .float(let lexeme):
            self = .double(Double(lexeme) ?? .nan)
        case .string(let string):
            self = .string(string)
        case .boolean(let flag):
            self = .bool(flag)
        case .null:
            self = .null
        case .enum(let name):
            self = .string(name)
        case .list(let elements):
            self = .array(elements.map { GraphQLJSON(resolving: $0, variables: variables) ?? .null })
        case .object(let fields):
            var object = GraphQLJSONObject()
            for field in fields {
                if let value = GraphQLJSON(resolving: field.value, variables: variables) {
                    object[field.name] = value
                }
            }
            self = .object(object)
        }
    }
}

extension GraphQLOperationDefinition {
    /// The request's variables completed with the operation's default values for those it does not provide.
    ///
    /// Variables the operation does not declare are kept (they are harmless and the upstream will reject them).
    public func resolvedVariables(_ provided: GraphQLJSONObject) -> GraphQLJSONObject {
        var resolved = provided
        // Only a variable with a default can change anything: the others are not looked up (most have none).
        for definition in variableDefinitions {
            guard let defaultValue = definition.defaultValue, resolved[definition.name] == nil,
                let value = GraphQLJSON(resolving: defaultValue, variables: GraphQLJSONObject())
            else { continue }
            resolved[definition.name] = value
        }
        return resolved
    }
}
