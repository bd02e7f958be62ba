extension GraphQLDocumentParser {
    /// SelectionSet: { Selection+ }
    mutating func parseSelectionSet() throws(GraphQLCacheError) -> GraphQLSelectionSet {
        if peek(.braceL) {
            try enterNesting()
        }
        try expect(.braceL)
        var selections: [GraphQLSelection] = []
        repeat {
            selections.append(peek(.spread) ? try parseFragment() : .field(try parseField()))
        } while try !expectOptional(.braceR)
        leaveNesting()
        return GraphQLSelectionSet(selections: selections)
    }

    /// Field: Alias? Name Arguments? Directives? SelectionSet?
    private mutating func parseField() throws(GraphQLCacheError) -> GraphQLField {
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
        let directives = try parseDirectives(isConstant: false)
        return GraphQLField(
            alias: alias,
            name: name,
            arguments: arguments,
            directives: directives,
            selectionSet: peek(.braceL) ? try parseSelectionSet() : nil,
            location: location
        )
    }

    /// FragmentSpread: ... FragmentName Directives?
    /// InlineFragment: ... TypeCondition? Directives? SelectionSet
    private mutating func parseFragment() throws(GraphQLCacheError) -> GraphQLSelection {
        let location = currentLocation()
        try expect(.spread)
        let hasTypeCondition = try expectOptionalKeyword("on")
        if !hasTypeCondition && peek(.name) {
            let name = try parseFragmentName()
            return .fragmentSpread(
                GraphQLFragmentSpread(
                    name: name,
                    directives: try parseDirectives(isConstant: false),
                    location: location
                )
            )
        }
        let typeCondition = hasTypeCondition ? try parseName() : nil
        let directives = try parseDirectives(isConstant: false)
        return .inlineFragment(
            GraphQLInlineFragment(
                typeCondition: typeCondition,
                directives: directives,
                selectionSet: try parseSelectionSet(),
                location: location
            )
        )
    }

    /// Arguments[Const]: ( Argument[?Const]+ )
    mutating func parseArguments(isConstant: Bool) throws(GraphQLCacheError) -> [GraphQLArgument] {
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
    mutating func parseDirectives(isConstant: Bool) throws(GraphQLCacheError) -> [GraphQLDirective] {
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
