import FixtureSupport
import Foundation

/// The differential corpus: hand-written documents from `ParserCorpus/` plus seeded mutations of the valid ones.
struct ParserCorpusDocument: Sendable {
    let name: String
    let source: String
    /// Written by hand (as opposed to generated); the differential test demands exact agreement on these.
    let isHandWritten: Bool
}

enum ParserCorpusLoader {
    /// Separates documents inside a `.graphql` corpus file; the rest of the line names the next document.
    static let separator = "# ===="

    /// Every hand-written corpus document: the `.graphql` files split at separator lines, and the
    /// `{name, source}` entries of the `.json` files (used for documents with unusual characters).
    static func handWritten() throws -> [ParserCorpusDocument] {
        let files = try FileManager.default.contentsOfDirectory(atPath: ParserTestPaths.corpusDirectory.path).sorted()
        var documents: [ParserCorpusDocument] = []
        for file in files {
            let url = ParserTestPaths.corpusDirectory.appendingPathComponent(file)
            if file.hasSuffix(".graphql") {
                documents += try split(String(contentsOf: url, encoding: .utf8), file: file)
            } else if file.hasSuffix(".json") {
                let entries = try JSONDecoder().decode([[String: String]].self, from: Data(contentsOf: url))
                for (index, entry) in entries.enumerated() {
                    let name = "\(file)#\(index) \(entry["name"] ?? "")"
                    guard let source = entry["source"] else {
                        throw ParserTestFailure("\(name) has no source")
                    }
                    documents.append(ParserCorpusDocument(name: name, source: source, isHandWritten: true))
                }
            }
        }
        return documents
    }

    private static func split(_ text: String, file: String) -> [ParserCorpusDocument] {
        var documents: [ParserCorpusDocument] = []
        var name = file
        var lines: [Substring] = []
        func flush() {
            let source = lines.joined(separator: "\n")
            if !source.allSatisfy(\.isWhitespace) {
                documents.append(ParserCorpusDocument(name: name, source: source, isHandWritten: true))
            }
            lines.removeAll()
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if line.hasPrefix(separator) {
                flush()
                name = "\(file): " + line.dropFirst(separator.count).trimmingCharacters(in: .whitespaces)
            } else {
                lines.append(line)
            }
        }
        flush()
        return documents
    }

    /// `count` mutations of each source, deterministic for a given seed.
    static func mutations(of sources: [String], count: Int, seed: UInt64) -> [ParserCorpusDocument] {
        var generator = SeededGenerator(seed: seed)
        var documents: [ParserCorpusDocument] = []
        for (index, source) in sources.enumerated() {
            for round in 0..<count {
                let (kind, mutated) = mutate(source, using: &generator)
                let name = "mutation \(index).\(round) (\(kind))"
                documents.append(ParserCorpusDocument(name: name, source: mutated, isHandWritten: false))
            }
        }
        return documents
    }

    /// Text that tends to hit lexer and parser edge cases when inserted anywhere.
    static let insertions: [String] = [
        "{", "}", "(", ")", "[", "]", ":", "!", "$", "@", "=", "|", "&", ".", "...", ",", "\"", "\"\"\"", "'", "#",
        "\\", "\\u", "\\u{", "0", "-", "1.", "e", "on", "\n", "\r", "\r\n", "\u{FEFF}", "\u{00A0}", "é", "😀",
        "\u{0}", "\t", " ", "query", "fragment", "type ", "$x", "@skip(if: true)",
    ]

    /// One random edit of `source`: the kind of edit and the result.
    static func mutate(_ source: String, using generator: inout SeededGenerator) -> (String, String) {
        var scalars = Array(source.unicodeScalars)
        let tokens = tokenRanges(scalars)
        let kind = Int.random(in: 0..<9, using: &generator)
        switch kind {
        case 0 where !scalars.isEmpty:
            scalars.remove(at: Int.random(in: 0..<scalars.count, using: &generator))
            return ("delete character", render(scalars))
        case 1 where !scalars.isEmpty:
            let index = Int.random(in: 0..<scalars.count, using: &generator)
            scalars.insert(scalars[index], at: index)
            return ("duplicate character", render(scalars))
        case 2 where scalars.count > 1:
            let index = Int.random(in: 0..<(scalars.count - 1), using: &generator)
            scalars.swapAt(index, index + 1)
            return ("swap characters", render(scalars))
        case 3 where !tokens.isEmpty:
            scalars.removeSubrange(tokens[Int.random(in: 0..<tokens.count, using: &generator)])
            return ("delete token", render(scalars))
        case 4 where !tokens.isEmpty:
            let range = tokens[Int.random(in: 0..<tokens.count, using: &generator)]
            scalars.insert(contentsOf: scalars[range], at: range.lowerBound)
            return ("duplicate token", render(scalars))
        case 5 where tokens.count > 1:
            let index = Int.random(in: 0..<(tokens.count - 1), using: &generator)
            let (first, second) = (tokens[index], tokens[index + 1])
            let replacement =
                Array(scalars[second]) + Array(scalars[first.upperBound..<second.lowerBound])
                + Array(scalars[first])
            scalars.replaceSubrange(first.lowerBound..<second.upperBound, with: replacement)
            return ("swap tokens", render(scalars))
        case 6:
            let length = Int.random(in: 0...scalars.count, using: &generator)
            return ("truncate", render(Array(scalars[0..<length])))
        default:
            let text = insertions[Int.random(in: 0..<insertions.count, using: &generator)]
            let index = Int.random(in: 0...scalars.count, using: &generator)
            scalars.insert(contentsOf: text.unicodeScalars, at: index)
            return ("insert \(text.debugDescription)", render(scalars))
        }
    }

    /// Rough token boundaries (runs of name characters, or single other non-space characters).
    private static func tokenRanges(_ scalars: [Unicode.Scalar]) -> [Range<Int>] {
        var ranges: [Range<Int>] = []
        var index = 0
        func isWord(_ scalar: Unicode.Scalar) -> Bool {
            scalar.isASCII && (scalar.properties.isAlphabetic || ("0"..."9").contains(scalar) || scalar == "_")
        }
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == " " || scalar == "\n" || scalar == "\t" || scalar == "," || scalar == "\r" {
                index += 1
            } else if isWord(scalar) {
                let start = index
                while index < scalars.count && isWord(scalars[index]) {
                    index += 1
                }
                ranges.append(start..<index)
            } else {
                ranges.append(index..<(index + 1))
                index += 1
            }
        }
        return ranges
    }

    private static func render(_ scalars: [Unicode.Scalar]) -> String {
        var string = ""
        string.unicodeScalars.append(contentsOf: scalars)
        return string
    }
}
