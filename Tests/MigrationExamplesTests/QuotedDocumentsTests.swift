import Foundation
import Testing
import UnifiedCache

@Suite("MIGRATION.md, the README and the UnifiedCache articles quote compiled code only")
struct QuotedDocumentsTests {
    @Test("every swift block of the documents appears verbatim, modulo indentation, in this test target")
    func everySwiftBlockIsCompiled() throws {
        let sources = try QuotedDocuments.testSources()
        var count = 0
        var missing: [String] = []
        for document in try QuotedDocuments.all() {
            for block in try document.codeBlocks() where block.language == "swift" {
                count += 1
                if !QuotedDocuments.sources(sources, contain: block) { missing.append(block.location) }
            }
        }
        #expect(count >= 30, "only \(count) swift blocks in the documents")
        #expect(missing.isEmpty, "swift blocks that are not in Tests/MigrationExamplesTests: \(missing)")
    }

    @Test("the README's GraphQL example is checked here, and each section left to others still exists")
    func readmeIsChecked() throws {
        let blocks = try QuotedDocuments.readme().codeBlocks().filter { $0.language == "swift" }
        #expect(blocks.contains { $0.lines.contains { $0.contains("struct AccountBalanceQuery") } })
        #expect(!blocks.contains { $0.lines.contains { $0.contains("import Hummingbird") } })
        let readme = try String(
            contentsOf: QuotedDocuments.repositoryRoot.appendingPathComponent("README.md"), encoding: .utf8)
        for heading in QuotedDocuments.readmeSectionsCompiledElsewhere {
            #expect(readme.contains("\n" + heading + "\n"), "README.md has no section \(heading)")
        }
    }

    @Test("MIGRATION.md quotes each step's examples, and every example file is quoted somewhere")
    func everyExampleFileIsQuoted() throws {
        func quotedFiles(_ documents: [QuotedDocuments.Document]) throws -> Set<String> {
            let blocks = try documents.flatMap { try $0.codeBlocks() }.filter { $0.language == "swift" }
            return try Set(blocks.compactMap(QuotedDocuments.exampleFile(quotedBy:)))
        }
        let steps: Set = [
            "Step1RESTOnly.swift", "Step2Facade.swift", "Step3BalancesToGraphQL.swift", "Step4Scenarios.swift",
        ]
        #expect(try quotedFiles([QuotedDocuments.migrationGuide()]) == steps)
        #expect(try quotedFiles(QuotedDocuments.all()) == Set(QuotedDocuments.exampleFiles()))
        #expect(try QuotedDocuments.exampleFiles().count == 5)
    }

    @Test("an edited block, a block from nowhere, part of a line and an unclosed fence are all caught")
    func editsAreCaught() throws {
        let sources = try QuotedDocuments.testSources()
        let original = try #require(QuotedDocuments.migrationGuide().codeBlocks().first { $0.language == "swift" })
        #expect(QuotedDocuments.sources(sources, contain: original))

        var edited = original
        edited.lines[edited.lines.count / 2] += " // edited in the document only"
        #expect(!QuotedDocuments.sources(sources, contain: edited))

        let invented = QuotedDocuments.CodeBlock(language: "swift", line: 1, lines: ["let nowhere = 42"])
        #expect(!QuotedDocuments.sources(sources, contain: invented))

        let partial = QuotedDocuments.CodeBlock(language: "swift", line: 1, lines: ["let accountId: Str"])
        #expect(!QuotedDocuments.sources(sources, contain: partial))

        let unclosed = #expect(throws: QuotedDocuments.UnterminatedFence.self) {
            try QuotedDocuments.codeBlocks(in: "text\n```swift\nlet a = 1\n", document: "X.md")
        }
        #expect(unclosed?.location == "X.md:2")
    }

    @Test("fences are read with their language, position and lines, indentation kept")
    func fencesAreParsed() throws {
        let markdown = "intro\n```swift\n    let a = 1\n\nlet b = 2\n```\n```json\n{}\n```\n"
        let blocks = try QuotedDocuments.codeBlocks(in: markdown, document: "X.md")
        #expect(
            blocks == [
                .init(language: "swift", line: 2, lines: ["    let a = 1", "", "let b = 2"], location: "X.md:2"),
                .init(language: "json", line: 7, lines: ["{}"], location: "X.md:7"),
            ])
    }

    @Test("every json block of the documents is a settings file UnifiedCache accepts")
    func everyJSONBlockIsValidSettings() throws {
        var count = 0
        for document in try QuotedDocuments.all() {
            for block in try document.codeBlocks() where block.language == "json" {
                count += 1
                let json = Array(block.lines.joined(separator: "\n").utf8)
                #expect(throws: Never.self, "the json block at \(block.location)") {
                    try CacheSettings(json: json, source: block.location)
                }
            }
        }
        #expect(count >= 3)
    }

    @Test("a json block with a mistake is refused, naming the place")
    func brokenJSONBlockIsRefused() throws {
        let block = try #require(
            QuotedDocuments.migrationGuide().codeBlocks().first { $0.language == "json" })
        let broken = block.lines.joined(separator: "\n").replacingOccurrences(
            of: "\"policy\": 60", with: "\"policy\": -1")
        #expect(broken != block.lines.joined(separator: "\n"))
        let error = #expect(throws: UnifiedCacheError.self) {
            try CacheSettings(json: Array(broken.utf8), source: block.location)
        }
        #expect(error?.place == "domains.search.policy")
    }
}
