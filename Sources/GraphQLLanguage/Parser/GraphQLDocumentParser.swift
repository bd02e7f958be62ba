/// The recursive-descent parser behind ``GraphQLParser``, one instance per document.
///
/// It follows graphql-js's structure (same token look-ahead, same error positions and wording) so that its
/// diagnostics can be compared one to one with the reference implementations.
package struct GraphQLDocumentParser {
    package var lexer: GraphQLLexer
    package var locator: GraphQLSourceLocator
    /// The current token.
    package var token: GraphQLToken
    /// The token after the current one, when a description forced the parser to look ahead.
    package var peeked: GraphQLToken?
    package var tokenCount = 0
    package var depth = 0
    package let maxDepth: Int
    package let maxTokens: Int

    package init(bytes: UnsafeBufferPointer<UInt8>, configuration: GraphQLParser.Configuration)
        throws(GraphQLLanguageError)
    {
        lexer = GraphQLLexer(bytes: bytes)
        locator = GraphQLSourceLocator(bytes: bytes)
        token = GraphQLToken(kind: .startOfFile, start: 0, end: 0)
        maxDepth = min(max(configuration.maxDepth, 0), GraphQLParser.Configuration.depthCeiling)
        maxTokens = configuration.maxTokens
        try advance()
    }

    // MARK: - Token stream

    /// Moves to the next significant token, enforcing the token limit.
    package mutating func advance() throws(GraphQLLanguageError) {
        if let next = peeked {
            token = next
            peeked = nil
        } else {
            token = try lexer.token(from: token.end)
        }
        if token.kind != .endOfFile {
            tokenCount += 1
            if tokenCount > maxTokens {
                throw GraphQLLanguageError(
                    code: .tooLarge,
                    message: "Syntax Error: Document contains more than \(maxTokens) tokens. Parsing aborted.",
                    locations: [GraphQLSourceLocator.location(in: lexer.bytes, of: token.start)]
                )
            }
        }
    }

    /// The token after the current one, without moving.
    package mutating func lookahead() throws(GraphQLLanguageError) -> GraphQLToken {
        if let peeked {
            return peeked
        }
        if token.kind == .endOfFile {
            return token
        }
        let next = try lexer.token(from: token.end)
        peeked = next
        return next
    }

    package func peek(_ kind: GraphQLTokenKind) -> Bool {
        token.kind == kind
    }

    /// Consumes a token of `kind` or fails with "Expected …, found …".
    @discardableResult
    package mutating func expect(_ kind: GraphQLTokenKind) throws(GraphQLLanguageError) -> GraphQLToken {
        let current = token
        guard current.kind == kind else {
            throw lexer.syntaxError("Expected \(kind.description), found \(describe(current)).", at: current.start)
        }
        try advance()
        return current
    }

    /// Consumes a token of `kind` if it is the current one.
    package mutating func expectOptional(_ kind: GraphQLTokenKind) throws(GraphQLLanguageError) -> Bool {
        guard token.kind == kind else {
            return false
        }
        try advance()
        return true
    }

    /// Consumes the name `keyword` or fails with "Expected "keyword", found …".
    package mutating func expectKeyword(_ keyword: StaticString) throws(GraphQLLanguageError) {
        guard isKeyword(token, keyword) else {
            throw lexer.syntaxError(
                "Expected \"\(keyword)\", found \(describe(token)).",
                at: token.start
            )
        }
        try advance()
    }

    /// Consumes the name `keyword` if it is the current token.
    package mutating func expectOptionalKeyword(_ keyword: StaticString) throws(GraphQLLanguageError) -> Bool {
        guard isKeyword(token, keyword) else {
            return false
        }
        try advance()
        return true
    }

    /// Whether `token` is the name `keyword`, compared byte for byte without building a String.
    package func isKeyword(_ token: GraphQLToken, _ keyword: StaticString) -> Bool {
        guard token.kind == .name, token.end - token.start == keyword.utf8CodeUnitCount else {
            return false
        }
        let expected = UnsafeBufferPointer(start: keyword.utf8Start, count: keyword.utf8CodeUnitCount)
        for offset in 0..<expected.count where lexer.bytes[token.start + offset] != expected[offset] {
            return false
        }
        return true
    }

    /// "Unexpected …" at `token` (the current token by default).
    package func unexpected(_ token: GraphQLToken? = nil) -> GraphQLLanguageError {
        let token = token ?? self.token
        return lexer.syntaxError("Unexpected \(describe(token)).", at: token.start)
    }

    /// A token as graphql-js describes it, e.g. `Name "foo"` or `"}"`; string values are never shown.
    package func describe(_ token: GraphQLToken) -> String {
        switch token.kind {
        case .name, .int, .float:
            let maximumShown = 80
            let end = min(token.end, token.start + maximumShown)
            let text = lexer.text(token.start, end) + (end < token.end ? "…" : "")
            return "\(token.kind.description) \"\(text)\""
        default:
            return token.kind.description
        }
    }

    /// The text of a name token.
    package func text(of token: GraphQLToken) -> String {
        lexer.text(token.start, token.end)
    }

    /// The location of the current token (cheap: the locator scans forward only).
    package mutating func currentLocation() -> GraphQLSourceLocation {
        locator.location(of: token.start)
    }

    /// Enters one more level of nesting, refusing to go deeper than the configured maximum.
    package mutating func enterNesting() throws(GraphQLLanguageError) {
        depth += 1
        if depth > maxDepth {
            throw GraphQLLanguageError(
                code: .tooDeep,
                message: "Syntax Error: Document is nested deeper than \(maxDepth) levels. Parsing aborted.",
                locations: [GraphQLSourceLocator.location(in: lexer.bytes, of: token.start)]
            )
        }
    }

    package mutating func leaveNesting() {
        depth -= 1
    }
}
