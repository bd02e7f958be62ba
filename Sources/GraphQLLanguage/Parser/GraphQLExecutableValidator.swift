/// The document-level checks behind ``GraphQLDocument/validateExecutable()``, with graphql-js messages.
///
/// Fragment graphs are walked with explicit work lists, not recursion: a long chain of fragments must not be
/// able to exhaust the stack.
package struct GraphQLExecutableValidator {
    package let document: GraphQLDocument
    package let operations: [GraphQLOperationDefinition]
    /// The first definition of each fragment name.
    package let fragmentsByName: [String: GraphQLFragmentDefinition]

    package init(document: GraphQLDocument) {
        self.document = document
        operations = document.operations
        var fragmentsByName: [String: GraphQLFragmentDefinition] = [:]
        for fragment in document.fragments where fragmentsByName[fragment.name] == nil {
            fragmentsByName[fragment.name] = fragment
        }
        self.fragmentsByName = fragmentsByName
    }

    package func validate() throws(GraphQLLanguageError) {
        try checkOperationNames()
        try checkFragmentNames()
        try checkSpreadsAreKnown()
        try checkNoFragmentCycles()
        for operation in operations {
            try checkVariablesAreDefined(in: operation)
        }
    }

    private func checkOperationNames() throws(GraphQLLanguageError) {
        var seen: [String: GraphQLOperationDefinition] = [:]
        for operation in operations {
            guard let name = operation.name else {
                if operations.count > 1 {
                    throw GraphQLLanguageError(
                        code: .anonymousOperationNotAlone,
                        message: "This anonymous operation must be the only defined operation.",
                        locations: [operation.location].compactMap { $0 }
                    )
                }
                continue
            }
            if let first = seen[name] {
                throw GraphQLLanguageError(
                    code: .duplicateOperationName,
                    message: "There can be only one operation named \"\(name)\".",
                    locations: [first.location, operation.location].compactMap { $0 }
                )
            }
            seen[name] = operation
        }
    }

    private func checkFragmentNames() throws(GraphQLLanguageError) {
        var seen: [String: GraphQLFragmentDefinition] = [:]
        for fragment in document.fragments {
            if let first = seen[fragment.name] {
                throw GraphQLLanguageError(
                    code: .duplicateFragmentName,
                    message: "There can be only one fragment named \"\(fragment.name)\".",
                    locations: [first.location, fragment.location].compactMap { $0 }
                )
            }
            seen[fragment.name] = fragment
        }
    }

    private func checkSpreadsAreKnown() throws(GraphQLLanguageError) {
        for definition in document.definitions {
            let selectionSet: GraphQLSelectionSet
            switch definition {
            case .operation(let operation):
                selectionSet = operation.selectionSet
            case .fragment(let fragment):
                selectionSet = fragment.selectionSet
            }
            for spread in Self.spreads(in: selectionSet) where fragmentsByName[spread.name] == nil {
                throw GraphQLLanguageError(
                    code: .unknownFragment,
                    message: "Unknown fragment \"\(spread.name)\".",
                    locations: [spread.location].compactMap { $0 }
                )
            }
        }
    }
}
