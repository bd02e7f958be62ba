import Foundation

/// MIGRATION.md and the sources that compile its examples, found from this file's path.
///
/// The check is textual on purpose: every ```swift block of the document must appear, line for line and modulo
/// leading indentation, in a Swift file of this test target. The compiler then vouches for the code, and an edit of
/// either side alone fails the suite.
enum MigrationDocument {
    /// A fenced code block of the document.
    struct CodeBlock: Equatable {
        /// The info string after the opening fence (`swift`, `json`, `sh`, …).
        var language: String
        /// The 1-based line of the opening fence.
        var line: Int
        /// The lines between the fences.
        var lines: [String]
    }

    /// A fence that is opened and never closed: everything after it would silently stop being checked.
    struct UnterminatedFence: Error, CustomStringConvertible {
        var line: Int
        var description: String { "MIGRATION.md: the code block opened on line \(line) is never closed" }
    }

    static let testsDirectory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    static let repositoryRoot = testsDirectory.deletingLastPathComponent().deletingLastPathComponent()

    static func text() throws -> String {
        try String(contentsOf: repositoryRoot.appendingPathComponent("MIGRATION.md"), encoding: .utf8)
    }

    /// The fenced blocks of a Markdown text, in order.
    static func codeBlocks(in markdown: String) throws(UnterminatedFence) -> [CodeBlock] {
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
                open = CodeBlock(language: String(trimmed.dropFirst(3)), line: index + 1, lines: [])
            }
        }
        if let open {
            throw UnterminatedFence(line: open.line)
        }
        return blocks
    }

    /// Lines without their indentation and trailing spaces: the form in which blocks and sources are compared.
    static func normalized(_ lines: [String]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }
    }

    /// Every Swift file of this test target (the examples and the tests), as one normalized text.
    static func testSources() throws -> String {
        let files = FileManager.default.enumerator(at: testsDirectory, includingPropertiesForKeys: nil)
        var texts: [String] = []
        while let url = files?.nextObject() as? URL {
            guard url.pathExtension == "swift" else { continue }
            let text = try String(contentsOf: url, encoding: .utf8)
            texts.append(
                normalized(text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
                    .joined(separator: "\n"))
        }
        return "\n" + texts.joined(separator: "\n\n") + "\n"
    }

    /// Whether `block` appears in `sources` as whole consecutive lines.
    static func sources(_ sources: String, contain block: CodeBlock) -> Bool {
        sources.contains("\n" + normalized(block.lines).joined(separator: "\n") + "\n")
    }

    /// The source file (under `Examples/`) whose text contains `block`, if any.
    static func exampleFile(quotedBy block: CodeBlock) throws -> String? {
        let directory = testsDirectory.appendingPathComponent("Examples")
        for name in try FileManager.default.contentsOfDirectory(atPath: directory.path).sorted() {
            let text = try String(contentsOf: directory.appendingPathComponent(name), encoding: .utf8)
            let lines = normalized(text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init))
            if sources("\n" + lines.joined(separator: "\n") + "\n", contain: block) {
                return name
            }
        }
        return nil
    }
}
