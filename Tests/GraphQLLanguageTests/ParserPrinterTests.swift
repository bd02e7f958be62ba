import GraphQLLanguage
import Testing

@Suite("Parser canonical printing")
struct ParserPrinterTests {
    @Test("the canonical form of every construct")
    func canonicalForm() throws {
        let source = """
            # comment
            query Q($a: [Int!]! = [1, 2] @v, $b: In = {x: "y", z: null}) @op(k: ENUM) {
              alias: field(arg: $a, other: 1.5e3, flag: true,) @include(if: $b) {
                ...Frag @s
                ... on T @t { x }
                ... @u { y }
                ... { z }
              }
            }
            mutation { m }
            subscription S { s }
            query @d { q }
            fragment Frag on T @f { w(list: [], obj: {}) }
            """
        let expected = """
            query Q($a: [Int!]! = [1, 2] @v, $b: In = {x: "y", z: null}) @op(k: ENUM) { alias: field(arg: $a, \
            other: 1.5e3, flag: true) @include(if: $b) { ...Frag @s ... on T @t { x } ... @u { y } ... { z } } }
            mutation { m }
            subscription S { s }
            query @d { q }
            fragment Frag on T @f { w(list: [], obj: {}) }
            """
        #expect(try GraphQLParser.parse(source).canonicalText == expected)
    }

    @Test("documents differing only in layout, comments, commas and string notation print identically")
    func layoutDoesNotMatter() throws {
        let variants = [
            #"query Q($id: ID = "A\u00e9") { account(id: $id) { balance, name } }"#,
            "query Q(\n  $id: ID = \"Aé\"\n) {\n  # what we need\n  account(id: $id) {\n    balance\n"
                + "    name\n  }\n}\n",
            "\u{FEFF}query Q($id:ID=\"\"\"\n    Aé\n\"\"\"){account(id:$id){balance name}}",
            ",,query,Q,(,$id,:,ID,=,\"A\\u{E9}\",),{,account,(,id,:,$id,),{,balance,,name,},},",
        ]
        let printed = try variants.map { try GraphQLParser.parse($0).canonicalText }
        #expect(Set(printed).count == 1)
        #expect(printed[0] == #"query Q($id: ID = "Aé") { account(id: $id) { balance name } }"#)
    }

    @Test("different meaning prints differently")
    func meaningMatters() throws {
        let pairs = [
            ("{ a(x: 1) }", "{ a(x: 2) }"),
            ("{ a(x: 1) }", "{ a(x: 1.0) }"),
            (#"{ a(x: "1") }"#, "{ a(x: 1) }"),
            ("{ a(x: ENUM) }", #"{ a(x: "ENUM") }"#),
            ("{ b: a }", "{ a }"),
            ("{ a b }", "{ b a }"),
        ]
        for (first, second) in pairs {
            #expect(try GraphQLParser.parse(first).canonicalText != (try GraphQLParser.parse(second).canonicalText))
        }
    }

    @Test("strings are printed with minimal, normalized escapes")
    func stringEscaping() throws {
        let text = "q\" b\\ \u{8}\u{C}\n\r\t \u{0}\u{1F}\u{7F}\u{9F}\u{A0} é 😀 \u{2028} /"
        let value = GraphQLValueLiteral.string(text)
        #expect(value.printed == #""q\" b\\ \b\f\n\r\t \u0000\u001F\u007F\u009F"# + "\u{A0} é 😀 \u{2028} /\"")
        let document = try GraphQLParser.parse("{ f(x: \(value.printed)) }")
        #expect(try argumentValue(document.canonicalText) == value)
    }

    @Test("operations and fragments print on their own")
    func printedParts() throws {
        let document = try GraphQLParser.parse("query Q { ...F } fragment F on T { a }")
        #expect(try document.operation(named: "Q").printed == "query Q { ...F }")
        #expect(document.fragment(named: "F")?.printed == "fragment F on T { a }")
        #expect(
            GraphQLValueLiteral.object([GraphQLObjectField(name: "id", value: .string("1"))]).printed
                == #"{id: "1"}"#)
    }

    @Test("printing and parsing again gives back an equal document, for every accepted corpus document")
    func roundTripOverCorpus() throws {
        let documents =
            try ParserCorpusLoader.handWritten().map(\.source)
            + ParserErrorCases.all.map(\.source)
        var roundTrips = 0
        for source in documents {
            guard let document = try? GraphQLParser.parse(source) else {
                continue
            }
            let printed = document.canonicalText
            let reparsed = try GraphQLParser.parse(printed)
            #expect(reparsed == document, "\(source.debugDescription)")
            #expect(reparsed.canonicalText == printed)
            roundTrips += 1
        }
        #expect(roundTrips > 100)
    }

    @Test("every definition survives printing")
    func printingKeepsEveryDefinition() throws {
        let document = try GraphQLParser.parse("query A { a } query B { b } fragment F on T { c }")
        let reparsed = try GraphQLParser.parse(document.canonicalText)
        #expect(reparsed.definitions.count == 3)
    }
}
