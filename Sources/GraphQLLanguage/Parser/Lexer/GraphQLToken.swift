/// The kinds of significant token; comments, commas, white space and line terminators never become tokens.
package enum GraphQLTokenKind: UInt8, Sendable {
    case startOfFile
    case endOfFile
    case bang
    case dollar
    case amp
    case parenL
    case parenR
    case spread
    case colon
    case equals
    case at
    case bracketL
    case bracketR
    case braceL
    case pipe
    case braceR
    case name
    case int
    case float
    case string
    case blockString

    /// The kind as graphql-js names it in messages: punctuators quoted, the others by name.
    package var description: String {
        switch self {
        case .startOfFile: "<SOF>"
        case .endOfFile: "<EOF>"
        case .bang: "\"!\""
        case .dollar: "\"$\""
        case .amp: "\"&\""
        case .parenL: "\"(\""
        case .parenR: "\")\""
        case .spread: "\"...\""
        case .colon: "\":\""
        case .equals: "\"=\""
        case .at: "\"@\""
        case .bracketL: "\"[\""
        case .bracketR: "\"]\""
        case .braceL: "\"{\""
        case .pipe: "\"|\""
        case .braceR: "\"}\""
        case .name: "Name"
        case .int: "Int"
        case .float: "Float"
        case .string: "String"
        case .blockString: "BlockString"
        }
    }
}

/// One significant token: its kind, its UTF-8 byte range and, for strings, the decoded value.
package struct GraphQLToken: Sendable {
    package var kind: GraphQLTokenKind
    /// Offset of the first byte.
    package var start: Int
    /// Offset just past the last byte.
    package var end: Int
    /// The value of a string or block string token (escapes and indentation resolved); nil for other kinds.
    package var value: String?

    package init(kind: GraphQLTokenKind, start: Int, end: Int, value: String? = nil) {
        self.kind = kind
        self.start = start
        self.end = end
        self.value = value
    }
}
