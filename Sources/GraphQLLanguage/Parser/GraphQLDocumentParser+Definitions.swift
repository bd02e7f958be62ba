extension GraphQLDocumentParser {
    /// Document: Definition+
    package mutating func parseDocument() throws(GraphQLLanguageError) -> GraphQLDocument {
        var definitions: [GraphQLExecutableDefinition] = []
        repeat {
            definitions.append(try parseDefinition())
        } while token.kind != .endOfFile
        return GraphQLDocument(definitions: definitions)
    }

    /// ExecutableDefinition; type-system definitions and extensions are recognised only to be refused.
    private mutating func parseDefinition() throws(GraphQLLanguageError) -> GraphQLExecutableDefinition {
        if peek(.braceL) {
            return .operation(try parseOperationDefinition())
        }
        // Type-system definitions may start with a description, so look past a leading string.
        let hasDescription = peek(.string) || peek(.blockString)
        let keyword = hasDescription ? try lookahead() : token
        if keyword.kind == .name {
            if isKeyword(keyword, in: Self.typeSystemKeywords) {
                throw unsupportedDefinition(keyword)
            }
            if hasDescription {
                throw lexer.syntaxError(
                    "Unexpected description, descriptions are supported only on type definitions.",
                    at: token.start
                )
            }
            if isKeyword(keyword, "query") || isKeyword(keyword, "mutation") || isKeyword(keyword, "subscription") {
                return .operation(try parseOperationDefinition())
            }
            if isKeyword(keyword, "fragment") {
                return .fragment(try parseFragmentDefinition())
            }
            if isKeyword(keyword, "extend") {
                // Like graphql-js, only a known extension keyword makes this a (refused) type-system extension.
                let extended = try lookahead()
                guard isKeyword(extended, in: Self.extensionKeywords) else {
                    throw unexpected(extended)
                }
                throw unsupportedDefinition(keyword)
            }
        }
        throw unexpected(keyword)
    }

    /// Keywords that start a type-system definition (after an optional description).
    private static let typeSystemKeywords: [StaticString] = [
        "schema", "scalar", "type", "interface", "union", "enum", "input", "directive",
    ]

    /// Keywords that may follow `extend` in a type-system extension.
    private static let extensionKeywords: [StaticString] = [
        "schema", "scalar", "type", "interface", "union", "enum", "input",
    ]

    private func isKeyword(_ token: GraphQLToken, in keywords: [StaticString]) -> Bool {
        keywords.contains { isKeyword(token, $0) }
    }

    /// The error for a type-system definition or extension, placed where the definition starts.
    private func unsupportedDefinition(_ keyword: GraphQLToken) -> GraphQLLanguageError {
        GraphQLLanguageError(
            code: .unsupportedDefinition,
            message: "Type-system definitions are not executable: found \"\(text(of: keyword))\" where an "
                + "operation or fragment was expected.",
            locations: [GraphQLSourceLocator.location(in: lexer.bytes, of: token.start)]
        )
    }

    /// OperationDefinition: SelectionSet | OperationType Name? VariableDefinitions? Directives? SelectionSet
    private mutating func parseOperationDefinition() throws(GraphQLLanguageError) -> GraphQLOperationDefinition {
        let location = currentLocation()
        if peek(.braceL) {
            return GraphQLOperationDefinition(kind: .query, selectionSet: try parseSelectionSet(), location: location)
        }
        let kind: GraphQLOperationDefinition.Kind
        if isKeyword(token, "query") {
            kind = .query
        } else if isKeyword(token, "mutation") {
            kind = .mutation
        } else if isKeyword(token, "subscription") {
            kind = .subscription
        } else {
            throw unexpected()
        }
        try advance()
        let name = peek(.name) ? try parseName() : nil
        let variableDefinitions = try parseVariableDefinitions()
        let directives = try parseDirectives(isConstant: false)
        return GraphQLOperationDefinition(
            kind: kind,
            name: name,
            variableDefinitions: variableDefinitions,
            directives: directives,
            selectionSet: try parseSelectionSet(),
            location: location
        )
    }

    /// VariableDefinitions: ( VariableDefinition+ )
    private mutating func parseVariableDefinitions() throws(GraphQLLanguageError) -> [GraphQLVariableDefinition] {
        guard try expectOptional(.parenL) else {
            return []
        }
        var definitions: [GraphQLVariableDefinition] = []
        repeat {
            definitions.append(try parseVariableDefinition())
        } while try !expectOptional(.parenR)
        return definitions
    }

    /// VariableDefinition: Variable : Type DefaultValue? Directives[Const]?
    private mutating func parseVariableDefinition() throws(GraphQLLanguageError) -> GraphQLVariableDefinition {
        let location = currentLocation()
        try expect(.dollar)
        let name = try parseName()
        try expect(.colon)
        let type = try parseTypeReference()
        let defaultValue = try expectOptional(.equals) ? try parseValueLiteral(isConstant: true) : nil
        return GraphQLVariableDefinition(
            name: name,
            type: type,
            defaultValue: defaultValue,
            directives: try parseDirectives(isConstant: true),
            location: location
        )
    }

    /// Type: NamedType | ListType | NonNullType
    private mutating func parseTypeReference() throws(GraphQLLanguageError) -> GraphQLTypeReference {
        var type: GraphQLTypeReference
        if peek(.bracketL) {
            try enterNesting()
            try advance()
            let inner = try parseTypeReference()
            try expect(.bracketR)
            leaveNesting()
            type = .list(inner)
        } else {
            type = .named(try parseName())
        }
        if try expectOptional(.bang) {
            type = .nonNull(type)
        }
        return type
    }

    /// FragmentDefinition: fragment FragmentName TypeCondition Directives? SelectionSet
    private mutating func parseFragmentDefinition() throws(GraphQLLanguageError) -> GraphQLFragmentDefinition {
        let location = currentLocation()
        try expectKeyword("fragment")
        let name = try parseFragmentName()
        try expectKeyword("on")
        let typeCondition = try parseName()
        let directives = try parseDirectives(isConstant: false)
        return GraphQLFragmentDefinition(
            name: name,
            typeCondition: typeCondition,
            directives: directives,
            selectionSet: try parseSelectionSet(),
            location: location
        )
    }

    /// FragmentName: Name but not `on`
    package mutating func parseFragmentName() throws(GraphQLLanguageError) -> String {
        // graphql-js checks the token's value whatever its kind, so a string "on" is "unexpected" too.
        if isKeyword(token, "on") || ((peek(.string) || peek(.blockString)) && token.value == "on") {
            throw unexpected()
        }
        return try parseName()
    }

    /// Name
    package mutating func parseName() throws(GraphQLLanguageError) -> String {
        let name = try expect(.name)
        return text(of: name)
    }
}
