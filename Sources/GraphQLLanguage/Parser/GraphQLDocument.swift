/// A parsed executable GraphQL document: operations and fragments, nothing from the type system.
///
/// Parse a document once per distinct text and keep it: it is an immutable value, safe to share between tasks.
/// Two documents are equal when they mean the same thing, whatever their layout, comments or commas.
public struct GraphQLDocument: Sendable, Hashable {
    /// The definitions in source order.
    public let definitions: [GraphQLExecutableDefinition]

    /// Creates a document from definitions (the parser's output, or one built in code).
    public init(definitions: [GraphQLExecutableDefinition]) {
        self.definitions = definitions
    }

    /// The operations in source order.
    public var operations: [GraphQLOperationDefinition] {
        definitions.compactMap { definition in
            if case .operation(let operation) = definition {
                return operation
            }
            return nil
        }
    }

    /// The fragment definitions in source order.
    public var fragments: [GraphQLFragmentDefinition] {
        definitions.compactMap { definition in
            if case .fragment(let fragment) = definition {
                return fragment
            }
            return nil
        }
    }

    /// The first fragment definition called `name`, if any.
    public func fragment(named name: String) -> GraphQLFragmentDefinition? {
        for case .fragment(let fragment) in definitions where fragment.name == name {
            return fragment
        }
        return nil
    }

    /// The operation a request asks for, following the specification's GetOperation.
    ///
    /// Without a name the document must hold exactly one operation; with a name, an operation of that name must
    /// exist. This does not validate the document: use ``prepare(operationName:)`` before executing.
    /// - Throws: `operationNotFound` or `ambiguousOperation`.
    public func operation(named name: String?) throws(GraphQLLanguageError) -> GraphQLOperationDefinition {
        let operations = operations
        guard let name else {
            if operations.count == 1 {
                return operations[0]
            }
            if operations.isEmpty {
                throw GraphQLLanguageError(code: .operationNotFound, message: "Must provide an operation.")
            }
            throw GraphQLLanguageError(
                code: .ambiguousOperation,
                message: "Must provide operation name if query contains multiple operations."
            )
        }
        guard let operation = operations.first(where: { $0.name == name }) else {
            throw GraphQLLanguageError(code: .operationNotFound, message: "Unknown operation named \"\(name)\".")
        }
        return operation
    }
}
