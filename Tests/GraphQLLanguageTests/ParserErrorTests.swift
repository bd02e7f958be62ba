import GraphQLLanguage
import Testing

/// A malformed document and exactly how the parser must refuse it.
struct SyntaxErrorCase: Sendable, CustomTestStringConvertible {
    let source: String
    let code: GraphQLLanguageError.Code
    let location: GraphQLSourceLocation
    let message: String

    /// A syntax error; `message` without the "Syntax Error: " prefix every syntax message has.
    init(_ source: String, _ line: Int, _ column: Int, _ message: String) {
        self.source = source
        code = .syntaxError
        location = GraphQLSourceLocation(line: line, column: column)
        self.message = "Syntax Error: " + message
    }

    /// A type-system definition, refused where it starts.
    init(unsupported source: String, keyword: String, _ line: Int, _ column: Int) {
        self.source = source
        code = .unsupportedDefinition
        location = GraphQLSourceLocation(line: line, column: column)
        message =
            "Type-system definitions are not executable: found \"\(keyword)\" where an operation or fragment "
            + "was expected."
    }

    var testDescription: String {
        source.debugDescription
    }
}

/// Hand-written malformed documents. Each message and location was checked by hand against the specification
/// and agrees with graphql-core 3.2.8 (graphql-js wording); the differential test re-checks them against it.
enum ParserErrorCases {
    static let all: [SyntaxErrorCase] = [
        SyntaxErrorCase("{ a(x: 0x1F) }", 1, 9, #"Invalid number, expected digit but got: "x"."#),
        SyntaxErrorCase("{ a(x: 1.) }", 1, 10, #"Invalid number, expected digit but got: ")"."#),
        SyntaxErrorCase("{ a(x: .5) }", 1, 8, #"Unexpected character: "."."#),
        SyntaxErrorCase("{ a(x: 00) }", 1, 9, #"Invalid number, unexpected digit after 0: "0"."#),
        SyntaxErrorCase("{ a(x: 1e) }", 1, 10, #"Invalid number, expected digit but got: ")"."#),
        SyntaxErrorCase("{ a(x: 123abc) }", 1, 11, #"Invalid number, expected digit but got: "a"."#),
        SyntaxErrorCase("{ a(x: -) }", 1, 9, #"Invalid number, expected digit but got: ")"."#),
        SyntaxErrorCase("{ a(x: 1.2.3) }", 1, 11, #"Invalid number, expected digit but got: "."."#),
        SyntaxErrorCase("{ a(x: 1e+) }", 1, 11, #"Invalid number, expected digit but got: ")"."#),
        SyntaxErrorCase("{ a(x: -01) }", 1, 10, #"Invalid number, unexpected digit after 0: "1"."#),
        SyntaxErrorCase("{ a(x: 1_000) }", 1, 9, #"Invalid number, expected digit but got: "_"."#),
        SyntaxErrorCase("{ a(x: 1.5e3x) }", 1, 13, #"Invalid number, expected digit but got: "x"."#),
        SyntaxErrorCase("{ a(x: 12.) }", 1, 11, #"Invalid number, expected digit but got: ")"."#),
        SyntaxErrorCase("{ a(x: 1.e5) }", 1, 10, #"Invalid number, expected digit but got: "e"."#),
        SyntaxErrorCase("{ a(x: 0.x) }", 1, 10, #"Invalid number, expected digit but got: "x"."#),
        SyntaxErrorCase("{ a(x: 1E_) }", 1, 10, #"Invalid number, expected digit but got: "_"."#),
        SyntaxErrorCase(#"{ a(x: "abc) }"#, 1, 15, "Unterminated string."),
        SyntaxErrorCase("{ a(x: \"abc\n\") }", 1, 12, "Unterminated string."),
        SyntaxErrorCase(#"{ a(x: "\q") }"#, 1, 9, #"Invalid character escape sequence: "\q"."#),
        SyntaxErrorCase(#"{ a(x: "\u12G4") }"#, 1, 9, #"Invalid Unicode escape sequence: "\u12G4"."#),
        SyntaxErrorCase(#"{ a(x: "\u{110000}") }"#, 1, 9, #"Invalid Unicode escape sequence: "\u{110000}"."#),
        SyntaxErrorCase(#"{ a(x: "\u{}") }"#, 1, 9, #"Invalid Unicode escape sequence: "\u{}"."#),
        SyntaxErrorCase(#"{ a(x: "\u{1F600") }"#, 1, 9, #"Invalid Unicode escape sequence: "\u{1F600""."#),
        SyntaxErrorCase(#"{ a(x: "\uD83D") }"#, 1, 9, #"Invalid Unicode escape sequence: "\uD83D"."#),
        SyntaxErrorCase(#"{ a(x: "\uDE00") }"#, 1, 9, #"Invalid Unicode escape sequence: "\uDE00"."#),
        SyntaxErrorCase(#"{ a(x: "\uD83D\u0041") }"#, 1, 9, #"Invalid Unicode escape sequence: "\uD83D"."#),
        SyntaxErrorCase(#"{ a(x: "\u{D800}") }"#, 1, 9, #"Invalid Unicode escape sequence: "\u{D800}"."#),
        SyntaxErrorCase(#"{ a(x: """abc) }"#, 1, 17, "Unterminated string."),
        SyntaxErrorCase(
            "{ a(x: 'single') }", 1, 8,
            #"Unexpected single quote character ('), did you mean to use a double quote (")?"#
        ),
        SyntaxErrorCase(#"{ a(x: "\u{000000041}") }"#, 1, 9, #"Invalid Unicode escape sequence: "\u{000000041"."#),
        SyntaxErrorCase(#"{ a(x: "\x41") }"#, 1, 9, #"Invalid character escape sequence: "\x"."#),
        SyntaxErrorCase("{ a ? }", 1, 5, #"Unexpected character: "?"."#),
        SyntaxErrorCase("{ a \u{A0} }", 1, 5, "Unexpected character: U+00A0."),
        SyntaxErrorCase("{ a \u{7} }", 1, 5, "Unexpected character: U+0007."),
        SyntaxErrorCase("{ a(x: 1) } .", 1, 13, #"Unexpected character: "."."#),
        SyntaxErrorCase("{ a \u{E9} }", 1, 5, "Unexpected character: U+00E9."),
        SyntaxErrorCase("{ a \u{1F600} }", 1, 5, "Unexpected character: U+1F600."),
        SyntaxErrorCase("{ a ~ }", 1, 5, #"Unexpected character: "~"."#),
        SyntaxErrorCase("{ a(x: \"\u{E9}\") ? }", 1, 13, #"Unexpected character: "?"."#),
        SyntaxErrorCase("{ a(x: \"\u{1F600}\u{1F600}\") ? }", 1, 14, #"Unexpected character: "?"."#),
        SyntaxErrorCase("\u{FEFF}{ a ? }", 1, 6, #"Unexpected character: "?"."#),
        SyntaxErrorCase("{\r\n  a\r\n  ?\r\n}", 3, 3, #"Unexpected character: "?"."#),
        SyntaxErrorCase("{\r a\r ?}", 3, 2, #"Unexpected character: "?"."#),
        SyntaxErrorCase("{ a }\n\n}", 3, 1, #"Unexpected "}"."#),
        SyntaxErrorCase("{ a ... }", 1, 9, #"Expected "{", found "}"."#),
        SyntaxErrorCase("", 1, 1, "Unexpected <EOF>."),
        SyntaxErrorCase("# only a comment", 1, 17, "Unexpected <EOF>."),
        SyntaxErrorCase("{}", 1, 2, #"Expected Name, found "}"."#),
        SyntaxErrorCase("{ a() }", 1, 5, #"Expected Name, found ")"."#),
        SyntaxErrorCase("query Q() { a }", 1, 9, #"Expected "$", found ")"."#),
        SyntaxErrorCase("{ a(x:) }", 1, 7, #"Unexpected ")"."#),
        SyntaxErrorCase("{ a(x 1) }", 1, 7, #"Expected ":", found Int "1"."#),
        SyntaxErrorCase("query Q($x) { a }", 1, 11, #"Expected ":", found ")"."#),
        SyntaxErrorCase("query Q($x: Int = $y) { a }", 1, 19, #"Unexpected variable "$y" in constant value."#),
        SyntaxErrorCase("query Q($x: Int = $) { a }", 1, 19, #"Unexpected "$"."#),
        SyntaxErrorCase("query Q($x: [Int) { a }", 1, 17, #"Expected "]", found ")"."#),
        SyntaxErrorCase("query Q($x: Int!!) { a }", 1, 17, #"Expected "$", found "!"."#),
        SyntaxErrorCase("fragment on on T { a }", 1, 10, #"Unexpected Name "on"."#),
        SyntaxErrorCase("fragment F T { a }", 1, 12, #"Expected "on", found Name "T"."#),
        SyntaxErrorCase("fragment F on { a }", 1, 15, #"Expected Name, found "{"."#),
        SyntaxErrorCase("{ ...on }", 1, 9, #"Expected Name, found "}"."#),
        SyntaxErrorCase("{ ... }", 1, 7, #"Expected "{", found "}"."#),
        SyntaxErrorCase("{ a { } }", 1, 7, #"Expected Name, found "}"."#),
        SyntaxErrorCase("{ a } }", 1, 7, #"Unexpected "}"."#),
        SyntaxErrorCase("{ a", 1, 4, "Expected Name, found <EOF>."),
        SyntaxErrorCase("query", 1, 6, #"Expected "{", found <EOF>."#),
        SyntaxErrorCase("query Q @ { a }", 1, 11, #"Expected Name, found "{"."#),
        SyntaxErrorCase("{ a @skip(if: ) }", 1, 15, #"Unexpected ")"."#),
        SyntaxErrorCase("{ a(x: [1, 2) }", 1, 13, #"Unexpected ")"."#),
        SyntaxErrorCase("{ a(x: {b 1}) }", 1, 11, #"Expected ":", found Int "1"."#),
        SyntaxErrorCase("{ a(x: {1: 2}) }", 1, 9, #"Expected Name, found Int "1"."#),
        SyntaxErrorCase("notAKeyword { a }", 1, 1, #"Unexpected Name "notAKeyword"."#),
        SyntaxErrorCase(
            #""description" query { a }"#, 1, 1,
            "Unexpected description, descriptions are supported only on type definitions."
        ),
        SyntaxErrorCase(#""""description""" { a }"#, 1, 19, #"Unexpected "{"."#),
        SyntaxErrorCase(#""description""#, 1, 14, "Unexpected <EOF>."),
        SyntaxErrorCase("{ a: }", 1, 6, #"Expected Name, found "}"."#),
        SyntaxErrorCase("{ a: b: c }", 1, 7, #"Expected Name, found ":"."#),
        SyntaxErrorCase("mutation { a } subscription", 1, 28, #"Expected "{", found <EOF>."#),
        SyntaxErrorCase(#"{ a(x: "str" "str2") }"#, 1, 14, "Expected Name, found String."),
        SyntaxErrorCase("{ a(x: $) }", 1, 9, #"Expected Name, found ")"."#),
        SyntaxErrorCase("{ a(x: true false) }", 1, 18, #"Expected ":", found ")"."#),
        SyntaxErrorCase("query Q($x: Int @dir(a: $y)) { a }", 1, 25, #"Unexpected variable "$y" in constant value."#),
        SyntaxErrorCase("query Q($x: Int = 1 = 2) { a }", 1, 21, #"Expected "$", found "="."#),
        SyntaxErrorCase("{ a(x: 1) @ }", 1, 13, #"Expected Name, found "}"."#),
        SyntaxErrorCase("{ ... on T }", 1, 12, #"Expected "{", found "}"."#),
        SyntaxErrorCase("query Q { a }}", 1, 14, #"Unexpected "}"."#),
        SyntaxErrorCase("query Q($x: Int = {a: [$y]}) { a }", 1, 24, #"Unexpected variable "$y" in constant value."#),
        SyntaxErrorCase(#"fragment "on" on T { a }"#, 1, 10, "Unexpected String."),
        SyntaxErrorCase("fragment F on T", 1, 16, #"Expected "{", found <EOF>."#),
        SyntaxErrorCase("{ a(x: {b: 1) }", 1, 13, #"Expected Name, found ")"."#),
        SyntaxErrorCase("query Q($a: Int) ($b: Int) { a }", 1, 18, #"Expected "{", found "("."#),
        SyntaxErrorCase("query Q { a } fragment", 1, 23, "Expected Name, found <EOF>."),
        SyntaxErrorCase("query Q($: Int) { a }", 1, 10, #"Expected Name, found ":"."#),
        SyntaxErrorCase("{ a(x: $1) }", 1, 9, #"Expected Name, found Int "1"."#),
        SyntaxErrorCase("subscription { a } query Q", 1, 27, #"Expected "{", found <EOF>."#),
        SyntaxErrorCase(#""desc" 1x"#, 1, 9, #"Invalid number, expected digit but got: "x"."#),
        SyntaxErrorCase(
            #"{ a } "d" fragment F on T { a }"#, 1, 7,
            "Unexpected description, descriptions are supported only on type definitions."
        ),
        SyntaxErrorCase("{ ... on T @d }", 1, 15, #"Expected "{", found "}"."#),
        SyntaxErrorCase("{ a & b }", 1, 5, #"Expected Name, found "&"."#),
        SyntaxErrorCase("query Q($a: Int | Float) { a }", 1, 17, #"Expected "$", found "|"."#),
        SyntaxErrorCase("{ a(x: 1 | 2) }", 1, 10, #"Expected Name, found "|"."#),
        SyntaxErrorCase("{ a(x: @) }", 1, 8, #"Unexpected "@"."#),
        SyntaxErrorCase("{ a(x: =) }", 1, 8, #"Unexpected "="."#),
        SyntaxErrorCase("{ a! }", 1, 4, #"Expected Name, found "!"."#),
        SyntaxErrorCase("{ [a] }", 1, 3, #"Expected Name, found "["."#),
        SyntaxErrorCase(unsupported: "type Query { a: Int }", keyword: "type", 1, 1),
        SyntaxErrorCase(unsupported: #""desc" type Query { a: Int }"#, keyword: "type", 1, 1),
        SyntaxErrorCase(unsupported: "{ a }\nschema { query: Q }", keyword: "schema", 2, 1),
        SyntaxErrorCase(unsupported: "extend type Query { b: Int }", keyword: "extend", 1, 1),
        SyntaxErrorCase(unsupported: "scalar Date", keyword: "scalar", 1, 1),
        SyntaxErrorCase(unsupported: "directive @d on FIELD", keyword: "directive", 1, 1),
        SyntaxErrorCase(unsupported: "input I { a: Int }", keyword: "input", 1, 1),
        SyntaxErrorCase(unsupported: "enum E { A }", keyword: "enum", 1, 1),
        SyntaxErrorCase(unsupported: "interface I { a: Int }", keyword: "interface", 1, 1),
        SyntaxErrorCase(unsupported: "union U = A | B", keyword: "union", 1, 1),
        SyntaxErrorCase(unsupported: "extend schema @d", keyword: "extend", 1, 1),
        SyntaxErrorCase(unsupported: "\"\"\"\ndesc\n\"\"\"\nenum E { A }", keyword: "enum", 1, 1),
        SyntaxErrorCase("extend foo", 1, 8, #"Unexpected Name "foo"."#),
    ]
}

@Suite("Parser errors")
struct ParserErrorTests {
    @Test("a malformed document fails with the expected code, message and location", arguments: ParserErrorCases.all)
    func refusesMalformedDocument(_ errorCase: SyntaxErrorCase) throws {
        let error = try #require(parseError(errorCase.source))
        #expect(error.code == errorCase.code)
        #expect(error.message == errorCase.message)
        #expect(error.locations == [errorCase.location])
    }

    @Test("the description reads line:column: message")
    func descriptionHasLocationPrefix() throws {
        let error = try #require(parseError("query Q {\n  a\n  ?\n}"))
        #expect(error.description == #"3:3: Syntax Error: Unexpected character: "?"."#)
    }

    @Test("messages never echo string literal values, which may hold credentials")
    func messagesHideStringValues() throws {
        let sources = [
            #"mutation { login(password: "hunter2" "again-hunter2") }"#,
            #"fragment "hunter2" on T { a }"#,
            #"mutation { login(password: """hunter2""" """hunter2""") }"#,
        ]
        for source in sources {
            let error = try #require(parseError(source))
            #expect(!error.description.contains("hunter2"), "\(error)")
        }
    }

    @Test("very long names are shortened in messages")
    func longNamesAreShortened() throws {
        let name = String(repeating: "n", count: 10_000)
        let error = try #require(parseError("\(name) { a }"))
        #expect(error.message.count < 200)
        #expect(error.message.hasPrefix(#"Syntax Error: Unexpected Name "nnnn"#))
    }

    @Test("an error is reported at the first problem even when later ones exist")
    func firstProblemWins() throws {
        let error = try #require(parseError("{ a(x: 1x) }\ntype T { b: Int }\n{ ? }"))
        #expect(error.locations == [GraphQLSourceLocation(line: 1, column: 9)])
    }
}
