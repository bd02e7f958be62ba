extension GraphQLLexer {
    /// Reads a `"…"` string and resolves its escape sequences.
    package mutating func readString(start: Int) throws(GraphQLLanguageError) -> GraphQLToken {
        var index = start + 1
        var chunkStart = index
        var hasEscapes = false
        scratch.removeAll(keepingCapacity: true)
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let value: String
                if hasEscapes {
                    scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[chunkStart..<index]))
                    value = String(decoding: scratch, as: UTF8.self)
                } else {
                    value = text(chunkStart, index)
                }
                return GraphQLToken(kind: .string, start: start, end: index + 1, value: value)
            }
            if byte == UInt8(ascii: "\\") {
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[chunkStart..<index]))
                hasEscapes = true
                index += try readEscape(at: index)
                chunkStart = index
                continue
            }
            if byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                break
            }
            index += 1
        }
        throw syntaxError("Unterminated string.", at: index)
    }

    /// Appends the character an escape sequence stands for to `scratch` and returns the sequence's length.
    private mutating func readEscape(at index: Int) throws(GraphQLLanguageError) -> Int {
        let escaped: UInt8
        switch byte(at: index + 1) {
        case 0x75:  // "u"
            if byte(at: index + 2) == 0x7B {  // "{"
                return try readVariableWidthUnicodeEscape(at: index)
            }
            return try readFixedWidthUnicodeEscape(at: index)
        case 0x22: escaped = 0x22  // \" -> "
        case 0x5C: escaped = 0x5C  // \\ -> \
        case 0x2F: escaped = 0x2F  // \/ -> /
        case 0x62: escaped = 0x08  // \b -> backspace
        case 0x66: escaped = 0x0C  // \f -> form feed
        case 0x6E: escaped = 0x0A  // \n -> line feed
        case 0x72: escaped = 0x0D  // \r -> carriage return
        case 0x74: escaped = 0x09  // \t -> tab
        default:
            throw syntaxError(
                "Invalid character escape sequence: \"\(prefixText(from: index, scalars: 2))\".",
                at: index
            )
        }
        scratch.append(escaped)
        return 2
    }

    /// `\u{1F600}`: one to eight hexadecimal digits naming a Unicode scalar value (the current draft's form).
    private mutating func readVariableWidthUnicodeEscape(at index: Int) throws(GraphQLLanguageError) -> Int {
        var cursor = index + 3
        var scalarsRead = 3
        var value = 0
        // The longest valid form is \u{00000000}: twelve characters.
        while scalarsRead < 12 && cursor < bytes.count {
            let byte = bytes[cursor]
            cursor += Self.sequenceLength(byte)
            scalarsRead += 1
            if byte == UInt8(ascii: "}") {
                guard scalarsRead >= 5, Self.isScalarValue(value) else {
                    break
                }
                appendScalar(UInt32(value))
                return cursor - index
            }
            let digit = Self.hexValue(Int(byte))
            guard digit >= 0 else {
                break
            }
            value = value << 4 | digit
        }
        throw syntaxError("Invalid Unicode escape sequence: \"\(text(index, min(cursor, bytes.count)))\".", at: index)
    }

    /// `\u00E9`, or a `\uD83D\uDE00` surrogate pair that must combine into one scalar.
    private mutating func readFixedWidthUnicodeEscape(at index: Int) throws(GraphQLLanguageError) -> Int {
        let code = hex16(at: index + 2)
        if Self.isScalarValue(code) {
            appendScalar(UInt32(code))
            return 6
        }
        if code >= 0xD800 && code <= 0xDBFF && byte(at: index + 6) == 0x5C && byte(at: index + 7) == 0x75 {
            let trailing = hex16(at: index + 8)
            if trailing >= 0xDC00 && trailing <= 0xDFFF {
                appendScalar(UInt32(0x10000 + ((code - 0xD800) << 10) + (trailing - 0xDC00)))
                return 12
            }
        }
        throw syntaxError(
            "Invalid Unicode escape sequence: \"\(prefixText(from: index, scalars: 6))\".",
            at: index
        )
    }

    /// Four hexadecimal digits as a number, or a negative number if any is missing or not a hexadecimal digit.
    private func hex16(at index: Int) -> Int {
        var value = 0
        for offset in 0..<4 {
            let digit = Self.hexValue(byte(at: index + offset))
            if digit < 0 {
                return -1
            }
            value = value << 4 | digit
        }
        return value
    }

    /// Appends a Unicode scalar value to `scratch` as UTF-8.
    private mutating func appendScalar(_ value: UInt32) {
        switch value {
        case 0..<0x80:
            scratch.append(UInt8(value))
        case 0x80..<0x800:
            scratch.append(UInt8(0xC0 | value >> 6))
            scratch.append(UInt8(0x80 | value & 0x3F))
        case 0x800..<0x10000:
            scratch.append(UInt8(0xE0 | value >> 12))
            scratch.append(UInt8(0x80 | (value >> 6) & 0x3F))
            scratch.append(UInt8(0x80 | value & 0x3F))
        default:
            scratch.append(UInt8(0xF0 | value >> 18))
            scratch.append(UInt8(0x80 | (value >> 12) & 0x3F))
            scratch.append(UInt8(0x80 | (value >> 6) & 0x3F))
            scratch.append(UInt8(0x80 | value & 0x3F))
        }
    }
}
