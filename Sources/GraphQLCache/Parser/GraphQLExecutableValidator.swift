/// The document-level checks behind ``GraphQLDocument/validateExecutable()``, with graphql-js messages.
///
/// Fragment graphs are walked with explicit work lists, not recursion: a long chain of fragments must not be
/// able to exhaust the stack.
struct GraphQLExecutableValidator {
    let document: GraphQLDocument
    let operations: [GraphQLOperationDefinition]
    /// The first definition of each fragment name.
    let fragmentsByName: [String: GraphQLFragmentDefinition]

    init(document: GraphQLDocument) {
        self.document = document
        operations = document.operations
        var fragmentsByName: [String: GraphQLFragmentDefinition] = [:]
        for fragment in document.fragments where fragmentsByName[fragment.name] == nil {
            fragmentsByName[fragment.name] = fragment
        }
        self.fragmentsByName = fragmentsByName
    }

    func validate() throws(GraphQLCacheError) {
        try checkOperationNames()
        try checkFragmentNames()
        try checkSpreadsAreKnown()
        try checkNoFragmentCycles()
        for operation in operations {
            try checkVariablesAreDefined(in: operation)
        }
    }

    private func checkOperationNames() throws(GraphQLCacheError) {
        var seen: [String: GraphQLOperationDefinition] = [:]
        for operation in operations {
            guard let name = operation.name else {
                if operations.count > 1 {
                    throw GraphQLCacheError(
                        code: .anonymousOperationNotAlone,
                        message: "This anonymous operation must be the only defined operation.",
                        locations: [operation.location].compactMap { $0 }
                    )
                }
                continue
            }
            if let first = seen[name] {
                throw GraphQLCacheError(
                    code: .duplicateOperationName,
                    message: "There can be only one operation named \"\(name)\".",
                    locations: [first.location, operation.location].compactMap { $0 }
                )
            }
            seen[name] = operation
        }
    }

    private func checkFragmentNames() throws(GraphQLCacheError) {
        var seen: [String: GraphQLFragmentDefinition] = [:]
        for fragment in document.fragments {
            if let first = seen[fragment.name] {
                throw GraphQLCacheError(
                    code: .duplicateFragmentName,
                    message: "There can be only one fragment named \"\(fragment.name)\".",
                    locations: [first.location, fragment.location].compactMap { $0 }
                )
            }
            seen[fragment.name] = fragment
        }
    }

    private func checkSpreadsAreKnown() throws(GraphQLCacheError) {
        for definition in document.definitions {
            let selectionSet: GraphQLSelectionSet
            switch definition {
            case .operation(let operation):
                selectionSet = operation.selectionSet
            case .fragment(let fragment):
                selectionSet = fragment.selectionSet
            }
            for spread in Self.spreads(in: selectionSet) where fragmentsByName[spread.name] == nil {
                throw GraphQLCacheError(
                    code: .unknownFragment,
                    message: "Unknown fragment \"\(spread.name)\".",
                    locations: [spread.location].compactMap { $0 }
                )
            }
        }
    }
}
