extension GraphQLDocumentParser {
    /// A selection set whose closing brace has not been read yet, and what it will belong to.
    private struct OpenSelectionSet {
        enum Owner {
            /// The selection set of an operation or fragment definition: the one the caller asked for.
            case definition
            /// A field, complete but for its selection set.
            case field(GraphQLField)
            /// An inline fragment, complete but for its selection set.
            case inlineFragment(typeCondition: String?, directives: [GraphQLDirective], location: GraphQLSourceLocation)
        }

        let owner: Owner
        var selections: [GraphQLSelection] = []
    }

    /// SelectionSet: { Selection+ }, with Selection: Field | FragmentSpread | InlineFragment.
    ///
    /// Nested selection sets are parsed with an explicit stack instead of recursion, so the nesting of a query
    /// (its most common kind of depth) costs heap, not thread stack.
    package mutating func parseSelectionSet() throws(GraphQLLanguageError) -> GraphQLSelectionSet {
        var open: [OpenSelectionSet] = []
        try openSelectionSet(.definition, in: &open)
        while true {
            let innermost = open.count - 1
            // A selection set holds at least one selection, so "}" may only close a non-empty one.
            if !open[innermost].selections.isEmpty, try expectOptional(.braceR) {
                leaveNesting()
                let closed = open.removeLast()
                let selectionSet = GraphQLSelectionSet(selections: closed.selections)
                switch closed.owner {
                case .definition:
                    return selectionSet
                case .field(let head):
                    let field = GraphQLField(
                        alias: head.alias,
                        name: head.name,
                        arguments: head.arguments,
                        directives: head.directives,
                        selectionSet: selectionSet,
                        location: head.location
                    )
                    open[innermost - 1].selections.append(.field(field))
                case .inlineFragment(let typeCondition, let directives, let location):
                    let fragment = GraphQLInlineFragment(
                        typeCondition: typeCondition,
                        directives: directives,
                        selectionSet: selectionSet,
                        location: location
                    )
                    open[innermost - 1].selections.append(.inlineFragment(fragment))
                }
            } else if peek(.spread) {
                // FragmentSpread: ... FragmentName Directives?
                // InlineFragment: ... TypeCondition? Directives? SelectionSet
                let location = currentLocation()
                try advance()
                let hasTypeCondition = try expectOptionalKeyword("on")
                if !hasTypeCondition && peek(.name) {
                    let name = try parseFragmentName()
                    let directives = try parseDirectives(isConstant: false)
                    let spread = GraphQLFragmentSpread(name: name, directives: directives, location: location)
                    open[innermost].selections.append(.fragmentSpread(spread))
                } else {
                    let typeCondition = hasTypeCondition ? try parseName() : nil
                    let directives = try parseDirectives(isConstant: false)
                    let owner = OpenSelectionSet.Owner.inlineFragment(
                        typeCondition: typeCondition,
                        directives: directives,
                        location: location
                    )
                    try openSelectionSet(owner, in: &open)
                }
            } else {
                let head = try parseFieldHead()
                if peek(.braceL) {
                    try openSelectionSet(.field(head), in: &open)
                } else {
                    open[innermost].selections.append(.field(head))
                }
            }
        }
    }

    /// Reads the "{" of a selection set (counting one more level of nesting) and opens it.
    private mutating func openSelectionSet(
        _ owner: OpenSelectionSet.Owner,
        in open: inout [OpenSelectionSet]
    ) throws(GraphQLLanguageError) {
        if peek(.braceL) {
            try enterNesting()
        }
        try expect(.braceL)
        open.append(OpenSelectionSet(owner: owner))
    }

    /// Field: Alias? Name Arguments? Directives? — everything of a field but its selection set.
    private mutating func parseFieldHead() throws(GraphQLLanguageError) -> GraphQLField {
        let location = currentLocation()
        let nameOrAlias = try parseName()
        var alias: String?
        let name: String
        if try expectOptional(.colon) {
            alias = nameOrAlias
            name = try parseName()
        } else {
            name = nameOrAlias
        }
        let arguments = try parseArguments(isConstant: false)
        return GraphQLField(
            alias: alias,
            name: name,
            arguments: arguments,
            directives: try parseDirectives(isConstant: false),
            location: location
        )
    }

    /// Arguments[Const]: ( Argument[?Const]+ )
    package mutating func parseArguments(isConstant: Bool) throws(GraphQLLanguageError) -> [GraphQLArgument] {
        guard try expectOptional(.parenL) else {
            return []
        }
        var arguments: [GraphQLArgument] = []
        repeat {
            let location = currentLocation()
            let name = try parseName()
            try expect(.colon)
            let value = try parseValueLiteral(isConstant: isConstant)
            arguments.append(GraphQLArgument(name: name, value: value, location: location))
        } while try !expectOptional(.parenR)
        return arguments
    }

    /// Directives[Const]: Directive[?Const]+ (possibly none)
    package mutating func parseDirectives(isConstant: Bool) throws(GraphQLLanguageError) -> [GraphQLDirective] {
        var directives: [GraphQLDirective] = []
        while peek(.at) {
            let location = currentLocation()
            try advance()
            let name = try parseName()
            let arguments = try parseArguments(isConstant: isConstant)
            directives.append(GraphQLDirective(name: name, arguments: arguments, location: location))
        }
        return directives
    }
}
