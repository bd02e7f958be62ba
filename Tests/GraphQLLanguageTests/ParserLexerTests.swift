import GraphQLLanguage
import Testing

@Suite("Parser lexical rules")
struct ParserLexerTests {
    @Test(
        "numbers keep their exact lexeme",
        arguments: [
            "0", "-0", "7", "-7", "9223372036854775807", "-9223372036854775808", "9223372036854775808",
            "0.0", "-0.5", "1e5", "1E5", "1e+5", "1e-5", "1.5e5", "-1.5E-5", "0e0", "6.0221409e+23",
        ])
    func numberLexemes(lexeme: String) throws {
        let value = try argumentValue("{ f(x: \(lexeme)) }")
        switch value {
        case .int(let number, let text):
            #expect(text == lexeme)
            #expect(number == Int(lexeme))
            #expect(!lexeme.contains(".") && !lexeme.lowercased().contains("e"))
        case .float(let text):
            #expect(text == lexeme)
            #expect(value.doubleValue == Double(lexeme))
        default:
            Issue.record("\(lexeme) parsed as \(value)")
        }
    }

    @Test("numbers end at punctuators without white space")
    func numbersAdjacentToPunctuators() throws {
        let value = try argumentValue("{ f(x:[1,-2.5e3,{a:0}]) }")
        #expect(
            value
                == .list([
                    .int(1, lexeme: "1"),
                    .float(lexeme: "-2.5e3"),
                    .object([GraphQLObjectField(name: "a", value: .int(0, lexeme: "0"))]),
                ]))
    }

    @Test(
        "string escapes resolve to their characters",
        arguments: [
            (#""\"""#, "\""),
            (#""\\""#, "\\"),
            (#""\/""#, "/"),
            (#""\b\f\n\r\t""#, "\u{8}\u{C}\n\r\t"),
            (#""\u0041\u00e9\u00C9""#, "AéÉ"),
            (#""\u0000""#, "\u{0}"),
            (#""\uFFFF""#, "\u{FFFF}"),
            (#""\uD83D\uDE00""#, "😀"),
            (#""\uDBFF\uDFFF""#, "\u{10FFFF}"),
            (#""\u{41}\u{0}\u{1F600}\u{10FFFF}""#, "A\u{0}😀\u{10FFFF}"),
            (#""\u{00000041}""#, "A"),
            (#""plain # not a comment""#, "plain # not a comment"),
            ("\"Grüße 你好 😀\"", "Grüße 你好 😀"),
            ("\"\u{1}\u{7F}\u{FEFF}\"", "\u{1}\u{7F}\u{FEFF}"),
            (#""mixed \"quoted\" \u0041 end""#, "mixed \"quoted\" A end"),
        ])
    func stringEscapes(literal: String, expected: String) throws {
        #expect(try argumentValue("{ f(x: \(literal)) }") == .string(expected))
    }

    @Test(
        "block strings remove common indentation and blank edge lines",
        arguments: [
            ("\"\"\"\"\"\"", ""),
            ("\"\"\"  first line keeps indentation\"\"\"", "  first line keeps indentation"),
            (
                "\"\"\"\n    Hello,\n      World!\n\n    Yours,\n      GraphQL.\n  \"\"\"",
                "Hello,\n  World!\n\nYours,\n  GraphQL."
            ),
            ("\"\"\"\n\n  a\n\n\n\"\"\"", "a"),
            ("\"\"\"\n   \n     \n\"\"\"", ""),
            ("\"\"\"first\n    second\n      third\"\"\"", "first\nsecond\n  third"),
            ("\"\"\"\n  a\n      \n  b\n\"\"\"", "a\n    \nb"),
            ("\"\"\"\r\n    one\r\n      two\r\n  \"\"\"", "one\n  two"),
            ("\"\"\"\r    one\r      two\r  \"\"\"", "one\n  two"),
            ("\"\"\"\t\ta\n\t\tb\"\"\"", "\t\ta\nb"),
            ("\"\"\"escaped \\\"\"\" quotes\"\"\"", "escaped \"\"\" quotes"),
            ("\"\"\"no \\n escapes \\u0041\"\"\"", "no \\n escapes \\u0041"),
            ("\"\"\" \"quoted\" and \"\" \"\"\"", " \"quoted\" and \"\" "),
        ])
    func blockStrings(literal: String, expected: String) throws {
        #expect(try argumentValue("{ f(x: \(literal)) }") == .string(expected))
    }

    @Test("a block string ending in a quote needs the closing quotes right after it")
    func blockStringTrailingQuote() throws {
        // Four quotes: the block string ends at the first three, and the fourth starts a new (unterminated) string.
        let error = try #require(parseError("{ f(x: \"\"\"a\"\"\"\") }"))
        #expect(error.message == "Syntax Error: Unterminated string.")
    }

    @Test("names are ASCII letters, digits and underscores, not starting with a digit")
    func names() throws {
        let operation = try onlyOperation("{ _ __typename a1 A_b_C Z9_ }")
        let names = operation.selectionSet.selections.map { selection -> String in
            if case .field(let field) = selection {
                return field.name
            }
            return ""
        }
        #expect(names == ["_", "__typename", "a1", "A_b_C", "Z9_"])
        #expect(parseError("{ café }")?.message == "Syntax Error: Unexpected character: U+00E9.")
    }

    @Test("lines end at \\n, \\r\\n and a lone \\r; columns count Unicode scalars")
    func lineAndColumnCounting() throws {
        let cases: [(String, GraphQLSourceLocation)] = [
            ("{\n  a\n  ?\n}", GraphQLSourceLocation(line: 3, column: 3)),
            ("{\r\n  a\r\n  ?\r\n}", GraphQLSourceLocation(line: 3, column: 3)),
            ("{\r  a\r  ?\r}", GraphQLSourceLocation(line: 3, column: 3)),
            ("{\n\r\n\r  ?}", GraphQLSourceLocation(line: 4, column: 3)),
            ("{ a(x: \"é\") ? }", GraphQLSourceLocation(line: 1, column: 13)),
            ("{ a(x: \"😀😀\") ? }", GraphQLSourceLocation(line: 1, column: 14)),
            ("{ a(x: \"e\u{301}\") ? }", GraphQLSourceLocation(line: 1, column: 14)),
            ("\u{FEFF}{ ? }", GraphQLSourceLocation(line: 1, column: 4)),
            ("# \u{2028} is not a line break\n{ ? }", GraphQLSourceLocation(line: 2, column: 3)),
            ("{ a(x: \"\"\"\n\n\"\"\") ? }", GraphQLSourceLocation(line: 3, column: 6)),
            ("{ a(x: \"\"\"\r\n\r\n\"\"\") ? }", GraphQLSourceLocation(line: 3, column: 6)),
            ("{\n}", GraphQLSourceLocation(line: 2, column: 1)),
        ]
        for (source, location) in cases {
            #expect(parseError(source)?.locations == [location], "\(source.debugDescription)")
        }
    }

    @Test(
        "white space is only space and tab; other Unicode spaces are unexpected characters",
        arguments: [
            ("{ a \u{B} }", "U+000B"),
            ("{ a \u{C} }", "U+000C"),
            ("{ a \u{A0} }", "U+00A0"),
            ("{ a \u{85} }", "U+0085"),
            ("{ a \u{2028} }", "U+2028"),
            ("{ a \u{3000} }", "U+3000"),
            ("{ a \u{200B} }", "U+200B"),
            ("{ a \u{0} }", "U+0000"),
            ("{ a \u{7F} }", "U+007F"),
            ("{ a \u{1F600} }", "U+1F600"),
        ])
    func unicodeSpacesAreNotWhiteSpace(source: String, codePoint: String) throws {
        let error = try #require(parseError(source))
        #expect(error.message == "Syntax Error: Unexpected character: \(codePoint).")
        #expect(error.locations == [GraphQLSourceLocation(line: 1, column: 5)])
    }

    @Test("comments run to the end of the line and may hold any character")
    func comments() throws {
        let document = try GraphQLParser.parse("# \u{0}\u{1} 😀 \u{2028} { ? }\n{ a } # { b }\r# c\r\n")
        #expect(document.canonicalText == "{ a }")
    }

    @Test("strings may not span lines")
    func stringsStopAtLineTerminators() throws {
        for source in ["{ f(x: \"a\nb\") }", "{ f(x: \"a\rb\") }", "{ f(x: \"a\r\nb\") }"] {
            let error = try #require(parseError(source))
            #expect(error.message == "Syntax Error: Unterminated string.")
            #expect(error.locations == [GraphQLSourceLocation(line: 1, column: 10)])
        }
    }

    @Test("escapes cut off by the end of the document are invalid, not crashes")
    func truncatedEscapes() throws {
        // graphql-core 3.2.8 raises IndexError on these (a bug); graphql-js reports them like this.
        let cases: [(String, String, Int)] = [
            (#"{ f(x: "\u12"#, #"Invalid Unicode escape sequence: "\u12"."#, 9),
            (#"{ f(x: "\u"#, #"Invalid Unicode escape sequence: "\u"."#, 9),
            (#"{ f(x: "\uD83D\u12"#, #"Invalid Unicode escape sequence: "\uD83D"."#, 9),
            (#"{ f(x: "\uD83D\"#, #"Invalid Unicode escape sequence: "\uD83D"."#, 9),
            (#"{ f(x: "\u{12"#, #"Invalid Unicode escape sequence: "\u{12"."#, 9),
            (#"{ f(x: "\"#, #"Invalid character escape sequence: "\"."#, 9),
        ]
        for (source, message, column) in cases {
            let error = try #require(parseError(source))
            #expect(error.message == "Syntax Error: " + message, "\(source)")
            #expect(error.locations == [GraphQLSourceLocation(line: 1, column: column)])
        }
    }
}
