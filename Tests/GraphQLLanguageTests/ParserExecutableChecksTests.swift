import GraphQLLanguage
import Testing

@Suite("Parser executable checks")
struct ParserExecutableChecksTests {
    private func validationError(_ source: String) throws -> GraphQLLanguageError? {
        let document = try GraphQLParser.parse(source)
        do {
            try document.validateExecutable()
            return nil
        } catch {
            return error
        }
    }

    private func location(_ line: Int, _ column: Int) -> GraphQLSourceLocation {
        GraphQLSourceLocation(line: line, column: column)
    }

    // MARK: GetOperation

    @Test("without a name, the only operation is chosen")
    func onlyOperationWithoutName() throws {
        let document = try GraphQLParser.parse("query Q { a } fragment F on T { b }")
        #expect(try document.operation(named: nil).name == "Q")
    }

    @Test("without a name, several operations are ambiguous")
    func severalOperationsNeedAName() throws {
        let document = try GraphQLParser.parse("query A { a } query B { b }")
        let error = try #require(throws: GraphQLLanguageError.self) { try document.operation(named: nil) }
        #expect(error.code == .ambiguousOperation)
        #expect(error.message == "Must provide operation name if query contains multiple operations.")
        #expect(try document.operation(named: "B").name == "B")
    }

    @Test("an unknown operation name, or no operation at all, is not found")
    func operationNotFound() throws {
        let document = try GraphQLParser.parse("query A { a }")
        let unknown = try #require(throws: GraphQLLanguageError.self) { try document.operation(named: "B") }
        #expect(unknown.code == .operationNotFound)
        #expect(unknown.message == #"Unknown operation named "B"."#)
        let fragmentsOnly = try GraphQLParser.parse("fragment F on T { a }")
        let none = try #require(throws: GraphQLLanguageError.self) { try fragmentsOnly.operation(named: nil) }
        #expect(none.code == .operationNotFound)
    }

    // MARK: Names

    @Test("operation names must be unique")
    func duplicateOperationNames() throws {
        let error = try #require(try validationError("query Q { a }\nmutation Q { b }"))
        #expect(error.code == .duplicateOperationName)
        #expect(error.message == #"There can be only one operation named "Q"."#)
        #expect(error.locations == [location(1, 1), location(2, 1)])
        #expect(try validationError("query Q { a }\nmutation R { b }") == nil)
    }

    @Test("an anonymous operation must stand alone")
    func anonymousOperationAlone() throws {
        let error = try #require(try validationError("{ a }\nquery Q { b }"))
        #expect(error.code == .anonymousOperationNotAlone)
        #expect(error.locations == [location(1, 1)])
        #expect(try validationError("{ a } fragment F on T { b }") == nil)
    }

    @Test("fragment names must be unique")
    func duplicateFragmentNames() throws {
        let error = try #require(try validationError("{ ...F }\nfragment F on T { a }\nfragment F on T { a }"))
        #expect(error.code == .duplicateFragmentName)
        #expect(error.message == #"There can be only one fragment named "F"."#)
        #expect(error.locations == [location(2, 1), location(3, 1)])
        #expect(try validationError("{ ...F ...G }\nfragment F on T { a }\nfragment G on T { a }") == nil)
    }

    // MARK: Fragments

    @Test("a spread must name a defined fragment, also inside fragments and inline fragments")
    func unknownFragment() throws {
        let error = try #require(try validationError("{ ...F }\nfragment F on T { ... on U { ...Missing } }"))
        #expect(error.code == .unknownFragment)
        #expect(error.message == #"Unknown fragment "Missing"."#)
        #expect(error.locations == [location(2, 30)])
        #expect(try validationError("{ ...F }\nfragment F on T { ... on U { ...G } }\nfragment G on U { a }") == nil)
    }

    @Test("a fragment spreading itself is a cycle")
    func selfCycle() throws {
        let error = try #require(try validationError("{ ...F }\nfragment F on T { a { ...F } }"))
        #expect(error.code == .fragmentCycle)
        #expect(error.message == #"Cannot spread fragment "F" within itself."#)
        #expect(error.locations == [location(2, 23)])
    }

    @Test("fragments spreading each other are a cycle, reported with the path")
    func longerCycle() throws {
        let source = """
            { ...A }
            fragment A on T { ...B }
            fragment B on T { x { ...C } }
            fragment C on T { ...A }
            """
        let error = try #require(try validationError(source))
        #expect(error.code == .fragmentCycle)
        #expect(error.message == #"Cannot spread fragment "A" within itself via "B", "C"."#)
        #expect(error.locations == [location(2, 19), location(3, 23), location(4, 19)])
    }

    @Test("fragments reached along several paths without a cycle are fine")
    func diamondIsNotACycle() throws {
        let source = """
            { ...A ...D }
            fragment A on T { ...B ...C }
            fragment B on T { ...D }
            fragment C on T { ...D }
            fragment D on T { d }
            """
        #expect(try validationError(source) == nil)
    }

    @Test("a long chain of fragments is checked without exhausting the stack")
    func longFragmentChain() throws {
        let count = 5_000
        var source = "{ ...F0 }\n"
        for index in 0..<count {
            source += "fragment F\(index) on T { a \(index + 1 < count ? "...F\(index + 1)" : "") }\n"
        }
        let document = try GraphQLParser.parse(source)
        #expect(try document.prepare(operationName: nil).fragments.count == count)
        let cyclic = try GraphQLParser.parse(source + "fragment Loop on T { ...Loop }")
        #expect(throws: GraphQLLanguageError.self) { try cyclic.validateExecutable() }
    }

    // MARK: Variables

    @Test(
        "a variable used but not defined by the operation is refused",
        arguments: [
            ("query Q { a(x: $v) }", 1, 13),
            ("query Q { a @include(if: $v) }", 1, 22),
            ("query Q @dir(x: $v) { a }", 1, 14),
            ("query Q { a(x: {b: [1, {c: $v}]}) }", 1, 13),
            ("query Q { ... on T @skip(if: $v) { a } }", 1, 26),
            ("query Q { ...F @skip(if: $v) }\nfragment F on T { a }", 1, 22),
        ])
    func undefinedVariable(source: String, line: Int, column: Int) throws {
        let error = try #require(try validationError(source))
        #expect(error.code == .undefinedVariable)
        #expect(error.message == #"Variable "$v" is not defined by operation "Q"."#)
        #expect(error.locations == [location(line, column), location(1, 1)])
    }

    @Test("a variable used in a fragment the operation reaches must be defined by that operation")
    func undefinedVariableInFragment() throws {
        let source = """
            query Good($v: Int) { ...F }
            query Bad { x { ...F } }
            fragment F on T { ...G }
            fragment G on T { a(x: $v) }
            """
        let error = try #require(try validationError(source))
        #expect(error.code == .undefinedVariable)
        #expect(error.message == #"Variable "$v" is not defined by operation "Bad"."#)
        #expect(error.locations == [location(4, 21), location(2, 1)])
    }

    @Test("an anonymous operation's undefined variable is named without an operation")
    func undefinedVariableAnonymous() throws {
        let error = try #require(try validationError("{ a(x: $v) }"))
        #expect(error.message == #"Variable "$v" is not defined."#)
    }

    @Test("defined variables, and fragments no operation reaches, pass")
    func definedVariables() throws {
        let source = """
            query Q($v: Int, $w: Boolean = true) @dir(x: $v) { a(x: $v) @skip(if: $w) ...F }
            fragment F on T { b(y: [$v, {z: $w}]) }
            fragment Unused on T { c(x: $elsewhere) }
            """
        #expect(try validationError(source) == nil)
    }

    // MARK: Prepare

    @Test("prepare selects the operation and exactly the fragments it uses")
    func prepareCollectsUsedFragments() throws {
        let document = try GraphQLParser.parse(
            """
            query A($id: ID) { node(id: $id) { ...N } }
            query B { other { ...O } }
            fragment N on Node { id ... on User { ...U } }
            fragment U on User { name }
            fragment O on Other { id }
            """
        )
        let prepared = try document.prepare(operationName: "A")
        #expect(prepared.operation.name == "A")
        #expect(Set(prepared.fragments.keys) == ["N", "U"])
        #expect(prepared.fragment(named: "U")?.typeCondition == "User")
        #expect(prepared.fragment(named: "O") == nil)
        #expect(
            prepared.canonicalText == """
                query A($id: ID) { node(id: $id) { ...N } }
                fragment N on Node { id ... on User { ...U } }
                fragment U on User { name }
                """)
    }

    @Test("prepare refuses an invalid document even if the chosen operation looks fine")
    func prepareValidatesWholeDocument() throws {
        let document = try GraphQLParser.parse("query A { a } query B { ...Missing }")
        let error = try #require(throws: GraphQLLanguageError.self) { try document.prepare(operationName: "A") }
        #expect(error.code == .unknownFragment)
        let ambiguous = try GraphQLParser.parse("query A { a } query B { b }")
        let choice = try #require(throws: GraphQLLanguageError.self) { try ambiguous.prepare(operationName: nil) }
        #expect(choice.code == .ambiguousOperation)
    }
}
