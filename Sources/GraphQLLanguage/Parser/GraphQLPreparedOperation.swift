/// An operation ready to execute: validated, selected from its document, and paired with exactly the fragments
/// it uses.
///
/// The cache walks `operation.selectionSet`, resolving spreads through ``fragments``. Prepare once per document
/// and operation name and keep the result: it is an immutable value, safe to share between tasks.
public struct GraphQLPreparedOperation: Sendable, Hashable {
    /// The operation the request asked for.
    public let operation: GraphQLOperationDefinition
    /// The fragments the operation spreads, directly or through other fragments, by name.
    public let fragments: [String: GraphQLFragmentDefinition]

    /// Creates a prepared operation; ``GraphQLDocument/prepare(operationName:)`` is the checked way to get one.
    public init(operation: GraphQLOperationDefinition, fragments: [String: GraphQLFragmentDefinition]) {
        self.operation = operation
        self.fragments = fragments
    }

    /// The fragment definition a spread refers to.
    public func fragment(named name: String) -> GraphQLFragmentDefinition? {
        fragments[name]
    }

    /// The operation followed by the fragments it uses in name order, in canonical form: what to send upstream
    /// and a stable identity of the request's shape (unused fragments of the document do not change it).
    public var canonicalText: String {
        var printer = GraphQLCanonicalPrinter()
        printer.write(operation)
        for name in fragments.keys.sorted() {
            if let fragment = fragments[name] {
                printer.output += "\n"
                printer.write(fragment)
            }
        }
        return printer.output
    }
}

extension GraphQLDocument {
    /// Checks that the document can be executed at all, whichever operation is chosen.
    ///
    /// The checks are those the cache relies on when it walks selection sets: operation and fragment names are
    /// unique, an anonymous operation stands alone, every spread names a defined fragment, fragments do not
    /// spread each other in a cycle, and every variable an operation uses (also inside the fragments it reaches)
    /// is defined by that operation. Schema-dependent rules (field existence, argument types) are the
    /// upstream's business.
    /// - Throws: the first problem found, as `duplicateOperationName`, `anonymousOperationNotAlone`,
    ///   `duplicateFragmentName`, `unknownFragment`, `fragmentCycle` or `undefinedVariable`.
    public func validateExecutable() throws(GraphQLLanguageError) {
        try GraphQLExecutableValidator(document: self).validate()
    }

    /// Validates the document, selects the operation (as ``operation(named:)`` does) and collects the fragments
    /// it uses.
    /// - Throws: any error of ``validateExecutable()``, then `operationNotFound` or `ambiguousOperation`.
    public func prepare(operationName: String?) throws(GraphQLLanguageError) -> GraphQLPreparedOperation {
        let validator = GraphQLExecutableValidator(document: self)
        try validator.validate()
        let operation = try operation(named: operationName)
        var fragments: [String: GraphQLFragmentDefinition] = [:]
        var pending = GraphQLExecutableValidator.spreads(in: operation.selectionSet).map(\.name)
        while let name = pending.popLast() {
            guard fragments[name] == nil, let fragment = validator.fragmentsByName[name] else {
                continue
            }
            fragments[name] = fragment
            pending.append(contentsOf: GraphQLExecutableValidator.spreads(in: fragment.selectionSet).map(\.name))
        }
        return GraphQLPreparedOperation(operation: operation, fragments: fragments)
    }
}
