import FixtureSupport
import GraphQLLanguage
import Testing

@Suite("Parser robustness")
struct ParserRobustnessTests {
    /// Parsing must either succeed or throw a located error; a crash would end the test process.
    private func checkParses(_ source: String) {
        do {
            _ = try GraphQLParser.parse(source)
        } catch {
            #expect(error.locations.count == 1, "\(source.debugDescription): \(error)")
            if let location = error.locations.first {
                #expect(location.line >= 1 && location.column >= 1)
                let lines = source.unicodeScalars.filter { $0 == "\n" || $0 == "\r" }.count + 1
                #expect(location.line <= lines)
            }
        }
    }

    @Test("thousands of random byte strings never crash the parser")
    func randomBytes() {
        var generator = SeededGenerator(seed: 0xB17E5)
        // Bytes biased towards GraphQL's own characters so that the parser gets past the first token.
        let alphabet = Array("{}()[]:!$@=|&.,\"'#\\ \n\r\tquerymutationfragmentonxyz_0123456789-+eE".utf8)
        for _ in 0..<5_000 {
            let length = Int.random(in: 0..<64, using: &generator)
            let bytes = (0..<length).map { _ in
                Bool.random(using: &generator)
                    ? alphabet[Int.random(in: 0..<alphabet.count, using: &generator)]
                    : UInt8.random(in: 0...255, using: &generator)
            }
            checkParses(String(decoding: bytes, as: UTF8.self))
        }
    }

    @Test("thousands of mutated documents never crash the parser, the checks or the printer")
    func mutatedDocuments() throws {
        let sources = try ParserCorpusLoader.handWritten().map(\.source)
        var generator = SeededGenerator(seed: 0x5EED)
        for round in 0..<10_000 {
            var source = sources[round % sources.count]
            for _ in 0...Int.random(in: 0..<3, using: &generator) {
                source = ParserCorpusLoader.mutate(source, using: &generator).1
            }
            checkParses(source)
            if let document = try? GraphQLParser.parse(source) {
                _ = try? document.prepare(operationName: nil)
                #expect((try? GraphQLParser.parse(document.canonicalText)) == document)
            }
        }
    }

    @Test(
        "deep nesting is refused with tooDeep instead of overflowing the stack",
        arguments: [
            ("", "{ a ", "", " }"),
            ("{ a(x: ", "[", "1", "]) }"),
            ("{ a(x: ", "{b: ", "1", "}) }"),
            ("query Q($v: ", "[", "Int", "]) { a }"),
        ])
    func deepNestingIsRefused(prefix: String, open: String, middle: String, close: String) throws {
        let depth = 100_000
        let source =
            prefix + String(repeating: open, count: depth) + middle
            + String(repeating: close, count: depth)
        let error = try #require(parseError(source))
        #expect(error.code == .tooDeep)
        #expect(error.message == "Syntax Error: Document is nested deeper than 128 levels. Parsing aborted.")
        #expect(error.locations.count == 1)
    }

    @Test("nesting up to the limit is accepted, one more level is not")
    func nestingLimitIsExact() throws {
        func nested(_ depth: Int) -> String {
            String(repeating: "{ a ", count: depth) + String(repeating: "}", count: depth)
        }
        #expect(parseError(nested(128)) == nil)
        #expect(parseError(nested(129))?.code == .tooDeep)
        let shallow = GraphQLParser.Configuration(maxDepth: 3)
        #expect(parseError("{ a { b { c } } }", configuration: shallow) == nil)
        let error = try #require(parseError("{ a { b { c { d } } } }", configuration: shallow))
        #expect(error.code == .tooDeep)
        #expect(error.locations == [GraphQLSourceLocation(line: 1, column: 13)])
        // Values and list types count towards the same limit as selection sets.
        #expect(parseError("{ a { b(x: [[1]]) } }", configuration: shallow)?.code == .tooDeep)
    }

    @Test("a configured depth beyond the ceiling is capped, so the stack stays safe on any thread")
    func depthCeiling() async throws {
        let generous = GraphQLParser.Configuration(maxDepth: 1_000_000)
        let source = String(repeating: "{ a ", count: 50_000) + String(repeating: "}", count: 50_000)
        // Parsing on a concurrency worker thread, whose stack is smaller than the main thread's.
        let error = await Task.detached { parseError(source, configuration: generous) }.value
        #expect(error?.code == .tooDeep)
        #expect(error?.message == "Syntax Error: Document is nested deeper than 512 levels. Parsing aborted.")
    }

    @Test("the token limit refuses large documents and allows exactly the limit")
    func tokenLimit() throws {
        let limited = GraphQLParser.Configuration(maxTokens: 6)
        #expect(parseError("{ a b c d }", configuration: limited) == nil)  // 6 tokens
        let error = try #require(parseError("{ a b c d e }", configuration: limited))
        #expect(error.code == .tooLarge)
        #expect(error.message == "Syntax Error: Document contains more than 6 tokens. Parsing aborted.")
        #expect(error.locations == [GraphQLSourceLocation(line: 1, column: 13)])
    }

    @Test("large documents within the limits parse")
    func largeDocument() throws {
        // 15 000 fields of 6 tokens each: 90 002 tokens, below the default limit of 100 000.
        let fields = (0..<15_000).map { "field\($0)(arg: \($0))" }.joined(separator: "\n")
        let document = try GraphQLParser.parse("{\n\(fields)\n}")
        #expect(try document.operation(named: nil).selectionSet.selections.count == 15_000)
    }

    @Test("a document is parsed the same way from any task")
    func concurrentParsing() async throws {
        let source = try #require(try ParserCorpusLoader.handWritten().first { $0.name.contains("kitchen sink") })
            .source
        let expected = try GraphQLParser.parse(source)
        let results = await withTaskGroup(of: GraphQLDocument?.self) { group in
            for _ in 0..<16 {
                group.addTask { try? GraphQLParser.parse(source) }
            }
            var results: [GraphQLDocument?] = []
            for await result in group {
                results.append(result)
            }
            return results
        }
        #expect(results.allSatisfy { $0 == expected })
    }
}
