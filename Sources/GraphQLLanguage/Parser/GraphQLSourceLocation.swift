/// A position in a GraphQL document, as people and tools count it.
///
/// Both numbers start at 1. Lines are separated by `\n`, `\r\n` or a lone `\r` (the specification's
/// LineTerminator). Columns count Unicode scalar values, the way graphql-core does, so a location points at the
/// same character whether the document travelled as UTF-8 or was read by another implementation.
/// (graphql-js counts UTF-16 code units instead, which differs only after characters outside the Basic
/// Multilingual Plane on the same line.)
public struct GraphQLSourceLocation: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// The 1-based line number.
    public let line: Int
    /// The 1-based column, in Unicode scalar values from the start of the line.
    public let column: Int

    /// Creates a location; useful when comparing errors in tests.
    public init(line: Int, column: Int) {
        self.line = line
        self.column = column
    }

    /// `line:column`, the form editors and compilers understand.
    public var description: String {
        "\(line):\(column)"
    }

    public static func < (lhs: GraphQLSourceLocation, rhs: GraphQLSourceLocation) -> Bool {
        (lhs.line, lhs.column) < (rhs.line, rhs.column)
    }
}
