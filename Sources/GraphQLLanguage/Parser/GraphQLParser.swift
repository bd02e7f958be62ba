/// Parses executable GraphQL documents: the requests a client sends, not schemas.
///
/// Parsing is the first step of every GraphQL request the cache handles, so it works directly on UTF-8 bytes
/// and is bounded: nesting and token count are limited by ``Configuration`` so a hostile document costs a
/// predictable amount of time and stack. Parse a distinct document text once and reuse the result.
public struct GraphQLParser: Sendable {
    /// Limits that keep parsing cheap and safe on untrusted input.
    public struct Configuration: Sendable, Hashable {
        /// The most selection sets, list or object values and list types that may be open at once.
        ///
        /// Default: 128, far beyond any real query. Deeper input is refused with `tooDeep` instead of risking
        /// the stack; values above 512 are treated as 512 for the same reason. At 128, parsing, printing,
        /// validating and hashing the deepest document stay well inside a 512 KB thread stack, even in debug
        /// builds.
        public var maxDepth: Int
        /// The most significant tokens (names, punctuators, values) a document may have.
        ///
        /// Default: 100 000, about 1 MB of typical query text. Longer input is refused with `tooLarge`.
        public var maxTokens: Int

        /// Creates a configuration; the defaults suit documents from untrusted clients.
        public init(maxDepth: Int = 128, maxTokens: Int = 100_000) {
            self.maxDepth = maxDepth
            self.maxTokens = maxTokens
        }

        /// The largest depth the parser allows, whatever is configured: its recursion must fit on any thread.
        static let depthCeiling = 512
    }

    /// The limits this parser applies.
    public let configuration: Configuration

    /// Creates a parser with the given limits.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
    }

    /// Parses an executable document with the default configuration.
    ///
    /// - Throws: `syntaxError` (with graphql-js wording and the line:column of the offending character),
    ///   `unsupportedDefinition` for type-system definitions, `tooDeep` or `tooLarge`.
    public static func parse(_ source: String) throws(GraphQLLanguageError) -> GraphQLDocument {
        try GraphQLParser().parse(source)
    }

    /// Parses an executable document with this parser's configuration.
    ///
    /// Only syntax is checked here; ``GraphQLDocument/prepare(operationName:)`` checks fragments and variables.
    /// - Throws: `syntaxError`, `unsupportedDefinition`, `tooDeep` or `tooLarge`.
    public func parse(_ source: String) throws(GraphQLLanguageError) -> GraphQLDocument {
        var source = source
        let configuration = configuration
        let result = source.withUTF8 { bytes in
            Result { () throws(GraphQLLanguageError) -> GraphQLDocument in
                var parser = try GraphQLDocumentParser(bytes: bytes, configuration: configuration)
                return try parser.parseDocument()
            }
        }
        return try result.get()
    }
}
