extension GraphQLDocumentParser {
    /// Value[Const]: Variable (unless constant), Int, Float, String, Boolean, Null, Enum, List or Object.
    mutating func parseValueLiteral(isConstant: Bool) throws(GraphQLCacheError) -> GraphQLValueLiteral {
        let current = token
        switch current.kind {
        case .bracketL:
            try enterNesting()
            try advance()
            var values: [GraphQLValueLiteral] = []
            while try !expectOptional(.bracketR) {
                values.append(try parseValueLiteral(isConstant: isConstant))
            }
            leaveNesting()
            return .list(values)
        case .braceL:
            try enterNesting()
            try advance()
            var fields: [GraphQLObjectField] = []
            while try !expectOptional(.braceR) {
                let name = try parseName()
                try expect(.colon)
                fields.append(GraphQLObjectField(name: name, value: try parseValueLiteral(isConstant: isConstant)))
            }
            leaveNesting()
            return .object(fields)
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
