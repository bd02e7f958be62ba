import Foundation
import Testing
import UnifiedCache

@Suite("MIGRATION.md quotes compiled code only")
struct MigrationDocumentTests {
    @Test("every swift block of MIGRATION.md appears verbatim, modulo indentation, in this test target")
    func everySwiftBlockIsCompiled() throws {
        let blocks = try MigrationDocument.codeBlocks(in: MigrationDocument.text()).filter { $0.language == "swift" }
        let sources = try MigrationDocument.testSources()
        #expect(blocks.count >= 12, "MIGRATION.md has only \(blocks.count) swift blocks")
        let missing = blocks.filter { !MigrationDocument.sources(sources, contain: $0) }.map(\.line)
        #expect(
            missing.isEmpty,
            "MIGRATION.md has swift blocks that are not in Tests/MigrationExamplesTests, on lines \(missing)")
    }

    @Test("every example file is quoted by the document, so code cannot drift away from it unnoticed")
    func everyExampleFileIsQuoted() throws {
        let blocks = try MigrationDocument.codeBlocks(in: MigrationDocument.text()).filter { $0.language == "swift" }
        let quoted = try Set(blocks.compactMap(MigrationDocument.exampleFile(quotedBy:)))
        let directory = MigrationDocument.testsDirectory.appendingPathComponent("Examples")
        let files = try Set(FileManager.default.contentsOfDirectory(atPath: directory.path))
        #expect(files.count == 4)
        #expect(quoted == files)
    }

    @Test("an edited block, a block from nowhere and an unclosed fence are all caught")
    func editsAreCaught() throws {
        let sources = try MigrationDocument.testSources()
        let original = try #require(
            MigrationDocument.codeBlocks(in: MigrationDocument.text()).first { $0.language == "swift" })
        #expect(MigrationDocument.sources(sources, contain: original))

        var edited = original
        edited.lines[edited.lines.count / 2] += " // edited in the document only"
        #expect(!MigrationDocument.sources(sources, contain: edited))

        let invented = MigrationDocument.CodeBlock(language: "swift", line: 1, lines: ["let nowhere = 42"])
        #expect(!MigrationDocument.sources(sources, contain: invented))

        // Part of a line is not a line: a block must match whole lines.
        let partial = MigrationDocument.CodeBlock(language: "swift", line: 1, lines: ["let accountId: Str"])
        #expect(!MigrationDocument.sources(sources, contain: partial))

        #expect(throws: MigrationDocument.UnterminatedFence.self) {
            try MigrationDocument.codeBlocks(in: "text\n```swift\nlet a = 1\n")
        }
    }

    @Test("fences are read with their language and their lines, indentation kept")
    func fencesAreParsed() throws {
        let markdown = "intro\n```swift\n    let a = 1\n\nlet b = 2\n```\n```json\n{}\n```\n"
        let blocks = try MigrationDocument.codeBlocks(in: markdown)
        #expect(
            blocks == [
                .init(language: "swift", line: 2, lines: ["    let a = 1", "", "let b = 2"]),
                .init(language: "json", line: 7, lines: ["{}"]),
            ])
    }

    @Test("every json block of MIGRATION.md is a settings file UnifiedCache accepts")
    func everyJSONBlockIsValidSettings() throws {
        let blocks = try MigrationDocument.codeBlocks(in: MigrationDocument.text()).filter { $0.language == "json" }
        #expect(!blocks.isEmpty)
        for block in blocks {
            let json = block.lines.joined(separator: "\n")
            #expect(throws: Never.self, "the json block on line \(block.line) of MIGRATION.md") {
                try CacheSettings(json: Array(json.utf8), source: "MIGRATION.md:\(block.line)")
            }
        }
    }
}
