import GraphQLLanguage
import Testing

@Suite("Parser syntax")
struct ParserSyntaxTests {
    @Test("the shorthand form is an anonymous query")
    func shorthandIsAnonymousQuery() throws {
        let operation = try onlyOperation("{ a b }")
        #expect(operation.kind == .query)
        #expect(operation.name == nil)
        #expect(operation.variableDefinitions.isEmpty)
        #expect(
            operation.selectionSet.selections == [.field(GraphQLField(name: "a")), .field(GraphQLField(name: "b"))])
    }

    @Test("each operation kind keeps its name, variables and directives")
    func operationsOfEachKind() throws {
        let document = try GraphQLParser.parse(
            """
            query Q($id: ID!, $first: Int = 10 @deprecated) @live { a }
            mutation M @atomic { b }
            subscription S($topic: [String!]) { c }
            """
        )
        let operations = document.operations
        #expect(operations.map(\.kind) == [.query, .mutation, .subscription])
        #expect(operations.map(\.name) == ["Q", "M", "S"])
        let query = operations[0]
        #expect(query.variableDefinitions.map(\.name) == ["id", "first"])
        #expect(query.variableDefinitions[0].type == .nonNull(.named("ID")))
        #expect(query.variableDefinitions[0].defaultValue == nil)
        #expect(query.variableDefinitions[1].defaultValue == .int(10, lexeme: "10"))
        #expect(query.variableDefinitions[1].directives.map(\.name) == ["deprecated"])
        #expect(query.directives.map(\.name) == ["live"])
        #expect(query.variableDefinition(named: "first")?.type == .named("Int"))
        #expect(operations[1].directives.map(\.name) == ["atomic"])
        #expect(operations[2].variableDefinitions[0].type == .list(.nonNull(.named("String"))))
    }

    @Test("type references nest lists and non-null markers")
    func typeReferences() throws {
        let operation = try onlyOperation("query ($a: [[Int!]!]!, $b: [ID], $c: Filter) { a }")
        let types = operation.variableDefinitions.map(\.type)
        #expect(types[0] == .nonNull(.list(.nonNull(.list(.nonNull(.named("Int")))))))
        #expect(types.map(\.description) == ["[[Int!]!]!", "[ID]", "Filter"])
        #expect(types.map(\.namedType) == ["Int", "ID", "Filter"])
    }

    @Test("a field keeps alias, arguments, directives and sub-selection")
    func fieldParts() throws {
        let field = try firstField(#"{ small: picture(size: 64, crop: true) @include(if: $show) { url } }"#)
        #expect(field.alias == "small")
        #expect(field.name == "picture")
        #expect(field.responseKey == "small")
        #expect(field.arguments.map(\.name) == ["size", "crop"])
        #expect(field.argument(named: "size") == .int(64, lexeme: "64"))
        #expect(field.argument(named: "missing") == nil)
        #expect(
            field.directives == [
                GraphQLDirective(name: "include", arguments: [GraphQLArgument(name: "if", value: .variable("show"))])
            ])
        #expect(field.directives[0].argument(named: "if") == .variable("show"))
        #expect(field.selectionSet?.selections == [.field(GraphQLField(name: "url"))])
        #expect(try firstField("{ plain }").responseKey == "plain")
    }

    @Test("fragment spreads and inline fragments with and without type condition")
    func fragments() throws {
        let document = try GraphQLParser.parse(
            """
            { node { ...Details @skip(if: false) ... on User { name } ... @include(if: true) { id } ... { kind } } }
            fragment Details on Node @dir { id }
            """
        )
        let operation = try document.operation(named: nil)
        guard case .field(let node) = operation.selectionSet.selections[0] else {
            Issue.record("expected a field")
            return
        }
        let selections = try #require(node.selectionSet?.selections)
        #expect(
            selections[0]
                == .fragmentSpread(
                    GraphQLFragmentSpread(
                        name: "Details",
                        directives: [
                            GraphQLDirective(
                                name: "skip", arguments: [GraphQLArgument(name: "if", value: .boolean(false))])
                        ]
                    )
                ))
        #expect(
            selections[1]
                == .inlineFragment(
                    GraphQLInlineFragment(
                        typeCondition: "User",
                        selectionSet: GraphQLSelectionSet(selections: [.field(GraphQLField(name: "name"))])
                    )
                ))
        guard case .inlineFragment(let conditional) = selections[2], case .inlineFragment(let bare) = selections[3]
        else {
            Issue.record("expected inline fragments")
            return
        }
        #expect(conditional.typeCondition == nil)
        #expect(conditional.directives.map(\.name) == ["include"])
        #expect(bare.typeCondition == nil && bare.directives.isEmpty)
        let fragment = try #require(document.fragment(named: "Details"))
        #expect(fragment.typeCondition == "Node")
        #expect(fragment.directives.map(\.name) == ["dir"])
        #expect(document.fragments.map(\.name) == ["Details"])
        #expect(document.fragment(named: "Missing") == nil)
    }

    @Test("keywords are ordinary names wherever a name is expected")
    func keywordsAsNames() throws {
        let document = try GraphQLParser.parse(
            """
            query query($on: on = on) { query: mutation(fragment: fragment) { on ...subscription ... on on { true } } }
            fragment subscription on type { null }
            """
        )
        let operation = try document.operation(named: "query")
        #expect(operation.variableDefinitions[0].type == .named("on"))
        #expect(operation.variableDefinitions[0].defaultValue == .enum("on"))
        let field = try firstField(operation.printed)
        #expect(field.alias == "query" && field.name == "mutation")
        #expect(field.argument(named: "fragment") == .enum("fragment"))
        #expect(document.fragment(named: "subscription")?.typeCondition == "type")
    }

    @Test(
        "every value literal kind",
        arguments: [
            ("1", GraphQLValueLiteral.int(1, lexeme: "1")),
            ("-0", .int(0, lexeme: "-0")),
            ("123456789012345678901234567890", .int(nil, lexeme: "123456789012345678901234567890")),
            ("1.5e-3", .float(lexeme: "1.5e-3")),
            (#""text""#, .string("text")),
            (#""""block""""#, .string("block")),
            ("true", .boolean(true)),
            ("false", .boolean(false)),
            ("null", .null),
            ("NULL", .enum("NULL")),
            ("ACTIVE", .enum("ACTIVE")),
            ("$v", .variable("v")),
            ("[]", .list([])),
            ("[1, [2], $v]", .list([.int(1, lexeme: "1"), .list([.int(2, lexeme: "2")]), .variable("v")])),
            ("{}", .object([])),
            (
                "{b: 1, a: {c: null}, b: 2}",
                .object([
                    GraphQLObjectField(name: "b", value: .int(1, lexeme: "1")),
                    GraphQLObjectField(name: "a", value: .object([GraphQLObjectField(name: "c", value: .null)])),
                    GraphQLObjectField(name: "b", value: .int(2, lexeme: "2")),
                ])
            ),
        ])
    func valueLiterals(source: String, expected: GraphQLValueLiteral) throws {
        #expect(try argumentValue("{ f(x: \(source)) }") == expected)
    }

    @Test("value helpers: numbers and constness")
    func valueHelpers() {
        #expect(GraphQLValueLiteral.int(lexeme: "42") == .int(42, lexeme: "42"))
        #expect(GraphQLValueLiteral.int(lexeme: "99999999999999999999").intValue == nil)
        #expect(GraphQLValueLiteral.float(lexeme: "2.5").doubleValue == 2.5)
        #expect(GraphQLValueLiteral.string("2").doubleValue == nil)
        #expect(GraphQLValueLiteral.list([.object([GraphQLObjectField(name: "a", value: .null)])]).isConstant)
        #expect(!GraphQLValueLiteral.list([.object([GraphQLObjectField(name: "a", value: .variable("v"))])]).isConstant)
    }

    @Test("nodes carry the location where they start")
    func nodeLocations() throws {
        let document = try GraphQLParser.parse(
            """
            query Q($a: Int) {
              alias: f(x: $a) @d {
                ...F
                ... on T { g }
              }
            }
            fragment F on T { h }
            """
        )
        let operation = try document.operation(named: "Q")
        #expect(operation.location == GraphQLSourceLocation(line: 1, column: 1))
        #expect(operation.variableDefinitions[0].location == GraphQLSourceLocation(line: 1, column: 9))
        guard case .field(let field) = operation.selectionSet.selections[0] else {
            Issue.record("expected a field")
            return
        }
        #expect(field.location == GraphQLSourceLocation(line: 2, column: 3))
        #expect(field.arguments[0].location == GraphQLSourceLocation(line: 2, column: 12))
        #expect(field.directives[0].location == GraphQLSourceLocation(line: 2, column: 19))
        let selections = try #require(field.selectionSet?.selections)
        guard case .fragmentSpread(let spread) = selections[0], case .inlineFragment(let inline) = selections[1] else {
            Issue.record("expected fragments")
            return
        }
        #expect(spread.location == GraphQLSourceLocation(line: 3, column: 5))
        #expect(inline.location == GraphQLSourceLocation(line: 4, column: 5))
        #expect(document.fragment(named: "F")?.location == GraphQLSourceLocation(line: 7, column: 1))
    }

    @Test("equality and hashing ignore layout and locations")
    func equalityIgnoresLocations() throws {
        let compact = try GraphQLParser.parse("query Q($a:Int=1){f(x:$a){g}}")
        let spread = try GraphQLParser.parse("# comment\nquery Q(\n  $a: Int = 1,\n) {\n  f(x: $a) {\n    g\n  }\n}\n")
        #expect(compact == spread)
        #expect(compact.hashValue == spread.hashValue)
        #expect(compact != (try GraphQLParser.parse("query Q($a:Int=2){f(x:$a){g}}")))
        #expect(try GraphQLParser.parse("query { a }") == (try GraphQLParser.parse("{ a }")))
    }

    @Test("commas, comments, white space and byte order marks are insignificant")
    func ignoredTokens() throws {
        let plain = try GraphQLParser.parse("query Q($a: Int) { f(x: 1, y: $a) { g h } }")
        let noisy = try GraphQLParser.parse(
            "\u{FEFF},,query,Q # c\n(\t$a:Int,,)\u{FEFF}{f(x:1 y:$a,),{g,h,}#}\r\n,}\r"
        )
        #expect(plain == noisy)
    }

    @Test("documents may mix operations and fragments in any order")
    func definitionsInOrder() throws {
        let document = try GraphQLParser.parse("fragment A on T { a } query Q { ...A } fragment B on T { b }")
        #expect(document.definitions.count == 3)
        #expect(document.operations.map(\.name) == ["Q"])
        #expect(document.fragments.map(\.name) == ["A", "B"])
        guard case .fragment = document.definitions[0], case .operation = document.definitions[1] else {
            Issue.record("definitions out of order")
            return
        }
    }
}
