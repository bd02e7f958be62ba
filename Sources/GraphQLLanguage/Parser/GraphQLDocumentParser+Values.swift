extension GraphQLDocumentParser {
    /// Value[Const]: Variable (unless constant), Int, Float, String, Boolean, Null, Enum, List or Object.
    ///
    /// Lists and objects recurse through small functions and everything else is read out of line, so each
    /// nesting level costs little stack, in debug builds too.
    package mutating func parseValueLiteral(isConstant: Bool) throws(GraphQLLanguageError) -> GraphQLValueLiteral {
        switch token.kind {
        case .bracketL:
            return .list(try parseListValue(isConstant: isConstant))
        case .braceL:
            return .object(try parseObjectValue(isConstant: isConstant))
        default:
            return try parseScalarValue(isConstant: isConstant)
        }
    }

    /// ListValue[Const]: [ ] | [ Value[?Const]+ ]
    private mutating func parseListValue(isConstant: Bool) throws(GraphQLLanguageError) -> [GraphQLValueLiteral] {
        try enterNesting()
        try advance()
        var values: [GraphQLValueLiteral] = []
        while try !expectOptional(.bracketR) {
            values.append(try parseValueLiteral(isConstant: isConstant))
        }
        leaveNesting()
        return values
    }

    /// ObjectValue[Const]: { } | { ObjectField[?Const]+ }
    private mutating func parseObjectValue(isConstant: Bool) throws(GraphQLLanguageError) -> [GraphQLObjectField] {
        try enterNesting()
        try advance()
        var fields: [GraphQLObjectField] = []
        while try !expectOptional(.braceR) {
            let name = try parseName()
            try expect(.colon)
            fields.append(GraphQLObjectField(name: name, value: try parseValueLiteral(isConstant: isConstant)))
        }
        leaveNesting()
        return fields
    }

    /// Every value that does not nest: variables, numbers, strings, booleans, null and enum values.
    @inline(never)
    private mutating func parseScalarValue(isConstant: Bool) throws(GraphQLLanguageError) -> GraphQLValueLiteral {
        let current = token
        switch current.kind {
        case .int:
            try advance()
            return .int(lexeme: text(of: current))
        case .float:
            try advance()
            return .float(lexeme: text(of: current))
        case .string, .blockString:
            try advance()
            return .string(current.value ?? "")
        case .name:
            try advance()
            if isKeyword(current, "true") {
                return .boolean(true)
            }
            if isKeyword(current, "false") {
                return .boolean(false)
            }
            if isKeyword(current, "null") {
                return .null
            }
            return .enum(text(of: current))
        case .dollar:
            try advance()
            if isConstant {
                if peek(.name) {
                    throw lexer.syntaxError(
                        "Unexpected variable \"$\(text(of: token))\" in constant value.",
                        at: current.start
                    )
                }
                throw unexpected(current)
            }
            return .variable(try parseName())
        default:
            throw unexpected()
        }
    }
}
