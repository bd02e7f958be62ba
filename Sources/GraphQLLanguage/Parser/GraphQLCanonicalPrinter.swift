/// Prints documents in one canonical form, the basis of a stable query identity.
///
/// The form has no comments, no insignificant commas, single spaces between tokens, every string as a regular
/// string with minimal escapes, and the `{ … }` shorthand for plain anonymous queries. Documents that differ only
/// in layout, comments, commas, string escapes or block-string notation print identically, and parsing the text
/// gives back an equal document.
package struct GraphQLCanonicalPrinter {
    package var output = ""

    package mutating func write(_ document: GraphQLDocument) {
        for (index, definition) in document.definitions.enumerated() {
            if index > 0 {
                output += "\n"
            }
            switch definition {
            case .operation(let operation):
                write(operation)
            case .fragment(let fragment):
                write(fragment)
            }
        }
    }

    package mutating func write(_ operation: GraphQLOperationDefinition) {
        let isShorthand =
            operation.kind == .query && operation.name == nil
            && operation.variableDefinitions.isEmpty && operation.directives.isEmpty
        if !isShorthand {
            output += operation.kind.rawValue
            if let name = operation.name {
                output += " " + name
            }
            if !operation.variableDefinitions.isEmpty {
                output += "("
                for (index, definition) in operation.variableDefinitions.enumerated() {
                    if index > 0 {
                        output += ", "
                    }
                    write(definition)
                }
                output += ")"
            }
            write(operation.directives)
            output += " "
        }
        write(operation.selectionSet)
    }

    package mutating func write(_ fragment: GraphQLFragmentDefinition) {
        output += "fragment " + fragment.name + " on " + fragment.typeCondition
        write(fragment.directives)
        output += " "
        write(fragment.selectionSet)
    }

    private mutating func write(_ definition: GraphQLVariableDefinition) {
        output += "$" + definition.name + ": " + definition.type.description
        if let defaultValue = definition.defaultValue {
            output += " = "
            write(defaultValue)
        }
        write(definition.directives)
    }

    private mutating func write(_ selectionSet: GraphQLSelectionSet) {
        output += "{"
        for selection in selectionSet.selections {
            output += " "
            switch selection {
            case .field(let field):
                if let alias = field.alias {
                    output += alias + ": "
                }
                output += field.name
                write(field.arguments)
                write(field.directives)
                if let selectionSet = field.selectionSet {
                    output += " "
                    write(selectionSet)
                }
            case .fragmentSpread(let spread):
                output += "..." + spread.name
                write(spread.directives)
            case .inlineFragment(let fragment):
                output += "..."
                if let typeCondition = fragment.typeCondition {
                    output += " on " + typeCondition
                }
                write(fragment.directives)
                output += " "
                write(fragment.selectionSet)
            }
        }
        output += " }"
    }

    private mutating func write(_ directives: [GraphQLDirective]) {
        for directive in directives {
            output += " @" + directive.name
            write(directive.arguments)
        }
    }

    private mutating func write(_ arguments: [GraphQLArgument]) {
        guard !arguments.isEmpty else {
            return
        }
        output += "("
        for (index, argument) in arguments.enumerated() {
            if index > 0 {
                output += ", "
            }
            output += argument.name + ": "
            write(argument.value)
        }
        output += ")"
    }

    package mutating func write(_ value: GraphQLValueLiteral) {
        switch value {
        case .variable(let name):
            output += "$" + name
        case .int(_, let lexeme), .float(let lexeme):
            output += lexeme
        case .string(let string):
            writeString(string)
        case .boolean(let flag):
            output += flag ? "true" : "false"
        case .null:
            output += "null"
        case .enum(let name):
            output += name
        case .list(let values):
            output += "["
            for (index, element) in values.enumerated() {
                if index > 0 {
                    output += ", "
                }
                write(element)
            }
            output += "]"
        case .object(let fields):
            output += "{"
            for (index, field) in fields.enumerated() {
                if index > 0 {
                    output += ", "
                }
                output += field.name + ": "
                write(field.value)
            }
            output += "}"
        }
    }

    /// A regular string literal: `"` and `\` escaped, control characters as short or `\u` escapes, the rest
    /// (including all non-ASCII text) written as is.
    private mutating func writeString(_ string: String) {
        output += "\""
        for scalar in string.unicodeScalars {
            switch scalar.value {
            case 0x22: output += "\\\""
            case 0x5C: output += "\\\\"
            case 0x08: output += "\\b"
            case 0x0C: output += "\\f"
            case 0x0A: output += "\\n"
            case 0x0D: output += "\\r"
            case 0x09: output += "\\t"
            case 0x00..<0x20, 0x7F..<0xA0:
                let digits = String(scalar.value, radix: 16, uppercase: true)
                output += "\\u" + String(repeating: "0", count: 4 - digits.count) + digits
            default:
                output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }
}

extension GraphQLDocument {
    /// The document in canonical form: equal for documents that differ only in layout, comments, commas or
    /// string notation, so it can serve as the document's identity (for example in cache keys).
    public var canonicalText: String {
        var printer = GraphQLCanonicalPrinter()
        printer.write(self)
        return printer.output
    }
}

extension GraphQLOperationDefinition {
    /// The operation alone in canonical form (see ``GraphQLDocument/canonicalText``).
    public var printed: String {
        var printer = GraphQLCanonicalPrinter()
        printer.write(self)
        return printer.output
    }
}

extension GraphQLFragmentDefinition {
    /// The fragment definition in canonical form (see ``GraphQLDocument/canonicalText``).
    public var printed: String {
        var printer = GraphQLCanonicalPrinter()
        printer.write(self)
        return printer.output
    }
}

extension GraphQLValueLiteral {
    /// The value in canonical GraphQL syntax, e.g. `{id: "123", first: 10}`.
    public var printed: String {
        var printer = GraphQLCanonicalPrinter()
        printer.write(self)
        return printer.output
    }
}
