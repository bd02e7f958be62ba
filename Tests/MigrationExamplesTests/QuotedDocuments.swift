import Foundation

/// The documents whose examples this target compiles: MIGRATION.md and the articles of the UnifiedCache DocC
/// catalog, found from this file's path.
///
/// The check is textual on purpose: every ```swift block of a document must appear, line for line and modulo
/// leading indentation, in a Swift file of this test target. The compiler then vouches for the code, and an edit of
/// either side alone fails the suite.
enum QuotedDocuments {
    /// A Markdown document and its name for messages (`MIGRATION.md`, `UnifiedCache.docc/Settings.md`).
    struct Document {
        var name: String
        var text: String

        func codeBlocks() throws(UnterminatedFence) -> [CodeBlock] {
            try QuotedDocuments.codeBlocks(in: text, document: name)
        }
    }

    /// A fenced code block of a document.
    struct CodeBlock: Equatable {
        /// The info string after the opening fence (`swift`, `json`, `sh`, …).
        var language: String
        /// The 1-based line of the opening fence.
        var line: Int
        /// The lines between the fences.
        var lines: [String]
        /// Where the block is, for messages: `MIGRATION.md:120`.
        var location = ""
    }

    /// A fence that is opened and never closed: everything after it would silently stop being checked.
    struct UnterminatedFence: Error, CustomStringConvertible {
        var location: String
        var description: String { "the code block opened at \(location) is never closed" }
    }

    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let examplesDirectory = testsDirectory.appendingPathComponent("Examples")
    static let repositoryRoot = testsDirectory.deletingLastPathComponent().deletingLastPathComponent()
    static let catalogDirectory = repositoryRoot.appendingPathComponent("Sources/UnifiedCache/UnifiedCache.docc")

    static func migrationGuide() throws -> Document {
        let url = repositoryRoot.appendingPathComponent("MIGRATION.md")
        return Document(name: "MIGRATION.md", text: try String(contentsOf: url, encoding: .utf8))
    }

    /// The pages of the UnifiedCache catalog, sorted by name.
    static func catalogArticles() throws -> [Document] {
        try FileManager.default.contentsOfDirectory(atPath: catalogDirectory.path).sorted()
            .filter { $0.hasSuffix(".md") }
            .map { name in
                let url = catalogDirectory.appendingPathComponent(name)
                return Document(name: "UnifiedCache.docc/\(name)", text: try String(contentsOf: url, encoding: .utf8))
            }
    }

    /// README.md's sections whose code this target does not compile: the manifest fragment of the install section,
    /// and the framework routes, which the Integrations package compiles and compares with the README itself.
    static let readmeSectionsCompiledElsewhere = ["## Install", "## In a Hummingbird route", "## In a Vapor route"]

    /// README.md with ``readmeSectionsCompiledElsewhere`` blanked (line numbers kept for messages).
    static func readme() throws -> Document {
        let url = repositoryRoot.appendingPathComponent("README.md")
        var skipping = false
        let lines = try String(contentsOf: url, encoding: .utf8).split(
            separator: "\n", omittingEmptySubsequences: false
        )
        .map { line -> Substring in
            if line.hasPrefix("## ") { skipping = readmeSectionsCompiledElsewhere.contains(String(line)) }
            return skipping ? "" : line
        }
        return Document(name: "README.md", text: lines.joined(separator: "\n"))
    }

    /// Every document whose examples are checked.
    static func all() throws -> [Document] {
        try [migrationGuide(), readme()] + catalogArticles()
    }

    /// The fenced blocks of a Markdown text, in order.
    static func codeBlocks(in markdown: String, document: String = "text") throws(UnterminatedFence) -> [CodeBlock] {
        var blocks: [CodeBlock] = []
        var open: CodeBlock?
        for (index, rawLine) in markdown.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = String(rawLine)
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var block = open {
                if trimmed == "```" {
                    blocks.append(block)
                    open = nil
                } else {
                    block.lines.append(line)
                    open = block
                }
            } else if trimmed.hasPrefix("```") {
                open = CodeBlock(
                    language: String(trimmed.dropFirst(3)), line: index + 1, lines: [],
                    location: "\(document):\(index + 1)")
            }
        }
        if let open {
            throw UnterminatedFence(location: open.location)
        }
        return blocks
    }

    /// Lines without their indentation and trailing spaces: the form in which blocks and sources are compared.
    static func normalized(_ lines: [String]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// A Swift file's text in the form blocks are searched in: normalized lines between newlines.
    static func searchable(_ text: String) -> String {
        "\n"
            + normalized(text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
            .joined(separator: "\n") + "\n"
    }

    /// Every Swift file of this test target (the examples and the tests), as one searchable text.
    static func testSources() throws -> String {
        let files = FileManager.default.enumerator(at: testsDirectory, includingPropertiesForKeys: nil)
        var texts: [String] = []
        while let url = files?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            texts.append(searchable(try String(contentsOf: url, encoding: .utf8)))
        }
        return texts.joined()
    }

    /// Whether `block` appears in `sources` as whole consecutive lines.
    static func sources(_ sources: String, contain block: CodeBlock) -> Bool {
        sources.contains("\n" + normalized(block.lines).joined(separator: "\n") + "\n")
    }

    /// The files under `Examples/`.
    static func exampleFiles() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: examplesDirectory.path).sorted()
    }

    /// The file under `Examples/` whose text contains `block`, if any.
    static func exampleFile(quotedBy block: CodeBlock) throws -> String? {
        for name in try exampleFiles() {
            let text = try String(contentsOf: examplesDirectory.appendingPathComponent(name), encoding: .utf8)
            if sources(searchable(text), contain: block) {
                return name
            }
        }
        return nil
    }
}
