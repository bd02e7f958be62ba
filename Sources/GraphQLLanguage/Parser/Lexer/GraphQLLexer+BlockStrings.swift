extension GraphQLLexer {
    /// Reads a `"""…"""` block string and computes its value with the specification's BlockStringValue:
    /// common indentation removed, leading and trailing blank lines dropped, lines joined with `\n`.
    package func readBlockString(start: Int) throws(GraphQLLanguageError) -> GraphQLToken {
        var index = start + 3
        var chunkStart = index
        var lines: [[UInt8]] = []
        var line: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") && self.byte(at: index + 1) == 0x22 && self.byte(at: index + 2) == 0x22 {
                line.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[chunkStart..<index]))
                lines.append(line)
                let value = String(decoding: Self.blockStringValue(lines), as: UTF8.self)
                return GraphQLToken(kind: .blockString, start: start, end: index + 3, value: value)
            }
            if byte == UInt8(ascii: "\\") && self.byte(at: index + 1) == 0x22 && self.byte(at: index + 2) == 0x22
                && self.byte(at: index + 3) == 0x22
            {
                // \""" stands for """: drop the backslash and keep the quotes as content.
                line.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[chunkStart..<index]))
                chunkStart = index + 1
                index += 4
                continue
            }
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                line.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[chunkStart..<index]))
                lines.append(line)
                line.removeAll(keepingCapacity: true)
                index += byte == UInt8(ascii: "\r") && self.byte(at: index + 1) == 0x0A ? 2 : 1
                chunkStart = index
                continue
            }
            index += 1
        }
        throw syntaxError("Unterminated string.", at: index)
    }

    /// BlockStringValue(rawValue) over the raw lines (line terminators already removed).
    package static func blockStringValue(_ lines: [[UInt8]]) -> [UInt8] {
        var commonIndent = Int.max
        var firstContentLine: Int?
        var lastContentLine = -1
        for (number, line) in lines.enumerated() {
            let indent = leadingWhiteSpace(line)
            guard indent < line.count else {
                continue  // blank lines neither set the indentation nor count as content
            }
            if firstContentLine == nil {
                firstContentLine = number
            }
            lastContentLine = number
            if number > 0 && indent < commonIndent {
                commonIndent = indent
            }
        }
        guard let firstContentLine else {
            return []
        }
        var value: [UInt8] = []
        for number in firstContentLine...lastContentLine {
            if number > firstContentLine {
                value.append(0x0A)
            }
            let line = lines[number]
            // The first line keeps its indentation; the others lose the common part (blank ones may be shorter).
            let dropped = number == 0 ? 0 : min(commonIndent, line.count)
            value.append(contentsOf: line[dropped...])
        }
        return value
    }

    private static func leadingWhiteSpace(_ line: [UInt8]) -> Int {
        var count = 0
        while count < line.count && (line[count] == 0x20 || line[count] == 0x09) {
            count += 1
        }
        return count
    }
}
