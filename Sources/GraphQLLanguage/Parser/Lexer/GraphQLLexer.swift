/// Splits a GraphQL document (UTF-8 bytes) into significant tokens, one at a time, the way graphql-js does.
///
/// The lexer works on bytes and never builds a `Character`: every decision the grammar makes outside strings
/// and comments is about ASCII, and inside them multi-byte sequences pass through unchanged. The bytes come
/// from a Swift `String`, so they are always valid UTF-8.
package struct GraphQLLexer {
    package let bytes: UnsafeBufferPointer<UInt8>
    /// Reused buffer for string values that contain escapes.
    package var scratch: [UInt8] = []

    package init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The byte at `index`, or -1 past the end (so comparisons need no separate bounds check).
    @inline(__always)
    package func byte(at index: Int) -> Int {
        index < bytes.count ? Int(bytes[index]) : -1
    }

    /// Reads the next significant token at or after `offset`, skipping white space, commas, the byte order mark,
    /// line terminators and comments.
    package mutating func token(from offset: Int) throws(GraphQLLanguageError) -> GraphQLToken {
        var index = offset
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: ","), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                index += 1
                continue
            case 0xEF where self.byte(at: index + 1) == 0xBB && self.byte(at: index + 2) == 0xBF:
                index += 3  // U+FEFF, the byte order mark, is ignored anywhere.
                continue
            case UInt8(ascii: "#"):
                index += 1
                while index < count, bytes[index] != UInt8(ascii: "\n"), bytes[index] != UInt8(ascii: "\r") {
                    index += 1
                }
                continue
            case UInt8(ascii: "\""):
                if self.byte(at: index + 1) == Int(UInt8(ascii: "\"")) && self.byte(at: index + 2) == Int(byte) {
                    return try readBlockString(start: index)
                }
                return try readString(start: index)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                return try readNumber(start: index)
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "_"):
                return readName(start: index)
            case UInt8(ascii: "."):
                if self.byte(at: index + 1) == Int(byte) && self.byte(at: index + 2) == Int(byte) {
                    return GraphQLToken(kind: .spread, start: index, end: index + 3)
                }
            default:
                if let kind = Self.punctuator(byte) {
                    return GraphQLToken(kind: kind, start: index, end: index + 1)
                }
            }
            if byte == UInt8(ascii: "'") {
                throw syntaxError(
                    "Unexpected single quote character ('), did you mean to use a double quote (\")?",
                    at: index
                )
            }
            throw syntaxError("Unexpected character: \(describeCodePoint(at: index)).", at: index)
        }
        return GraphQLToken(kind: .endOfFile, start: count, end: count)
    }

    private static func punctuator(_ byte: UInt8) -> GraphQLTokenKind? {
        switch byte {
        case UInt8(ascii: "!"): .bang
        case UInt8(ascii: "$"): .dollar
        case UInt8(ascii: "&"): .amp
        case UInt8(ascii: "("): .parenL
        case UInt8(ascii: ")"): .parenR
        case UInt8(ascii: ":"): .colon
        case UInt8(ascii: "="): .equals
        case UInt8(ascii: "@"): .at
        case UInt8(ascii: "["): .bracketL
        case UInt8(ascii: "]"): .bracketR
        case UInt8(ascii: "{"): .braceL
        case UInt8(ascii: "|"): .pipe
        case UInt8(ascii: "}"): .braceR
        default: nil
        }
    }

    private func readName(start: Int) -> GraphQLToken {
        var index = start + 1
        while index < bytes.count, Self.isNameContinue(Int(bytes[index])) {
            index += 1
        }
        return GraphQLToken(kind: .name, start: start, end: index)
    }

    @inline(__always)
    package static func isNameStart(_ byte: Int) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || byte == 0x5F
    }

    @inline(__always)
    package static func isNameContinue(_ byte: Int) -> Bool {
        isNameStart(byte) || isDigit(byte)
    }

    @inline(__always)
    package static func isDigit(_ byte: Int) -> Bool {
        byte >= 0x30 && byte <= 0x39
    }

    /// The document text of `start..<end` (always whole UTF-8 sequences).
    package func text(_ start: Int, _ end: Int) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
    }

    /// A syntax error at a byte offset, with its line and column.
    package func syntaxError(_ message: String, at offset: Int) -> GraphQLLanguageError {
        GraphQLLanguageError(
            code: .syntaxError,
            message: "Syntax Error: \(message)",
            locations: [GraphQLSourceLocator.location(in: bytes, of: offset)]
        )
    }
}
