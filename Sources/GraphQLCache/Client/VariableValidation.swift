import GraphQLLanguage

extension GraphQLOperationDefinition {
    /// Checks the request's variables against the operation's declarations, before anything is sent.
    ///
    /// What can be checked without the schema: a required variable (`T!` without default) is present and not
    /// `null`, and values of the built-in scalars (`Int`, `Float`, `String`, `Boolean`, `ID`) and of list types
    /// have the right JSON shape. Enums, input objects and custom scalars are the upstream's business.
    /// Messages name the variable and the expected type, never the value.
    /// - Throws: `invalidOperation`.
    func validateVariables(_ variables: GraphQLJSONObject) throws(GraphQLCacheError) {
        for definition in variableDefinitions {
            guard let value = variables[definition.name] else {
                if case .nonNull = definition.type, definition.defaultValue == nil {
                    throw .invalidOperation(
                        "Variable \"$\(definition.name)\" of required type \"\(definition.type)\" was not provided."
                    )
                }
                continue
            }
            if let problem = VariableShape.problem(with: value, for: definition.type) {
                throw .invalidOperation(
                    "Variable \"$\(definition.name)\" got an invalid value (\(problem)); expected type "
                        + "\"\(definition.type)\"."
                )
            }
        }
    }
}

/// The JSON shapes GraphQL's input coercion accepts for a declared type.
enum VariableShape {
    /// What is wrong with `value` for `type`, or `nil` when it fits.
    static func problem(with value: GraphQLJSON, for type: GraphQLTypeReference) -> String? {
        switch type {
        case .nonNull(let inner):
            if value.isNull {
                return "null"
            }
            return problem(with: value, for: inner)
        case .list(let element):
            if value.isNull {
                return nil
            }
            guard let elements = value.arrayValue else {
                // Input coercion accepts a single value for a list of it.
                return problem(with: value, for: element)
            }
            for (index, item) in elements.enumerated() {
                if let problem = problem(with: item, for: element) {
                    return "element \(index): \(problem)"
                }
            }
            return nil
        case .named(let name):
            if value.isNull {
                return nil
            }
            return scalarProblem(value, name: name)
        }
    }

    private static func scalarProblem(_ value: GraphQLJSON, name: String) -> String? {
        let fits: Bool
        switch name {
        case "Int":
            fits = value.int64Value.map { $0 >= Int64(Int32.min) && $0 <= Int64(Int32.max) } ?? false
        case "Float":
            fits = value.doubleValue != nil
        case "String":
            fits = value.stringValue != nil
        case "Boolean":
            fits = value.boolValue != nil
        case "ID":
            fits = value.stringValue != nil || value.int64Value != nil
        default:
            return nil
        }
        return fits ? nil : value.kindDescription
    }
}
