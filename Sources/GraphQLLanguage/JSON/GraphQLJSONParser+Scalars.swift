extension GraphQLJSONParser {
    // MARK: - Strings

    /// Parses a string starting at its opening quote. Strings without escapes (nearly all of a GraphQL
    /// response) become a `String` straight from the input bytes.
    package mutating func parseString() throws(GraphQLLanguageError) -> String {
        let opening = position
        position += 1
        let start = position
        var highBits: UInt8 = 0
        while position < bytes.count {
            let byte = bytes[position]
            highBits |= byte
            if byte == UInt8(ascii: "\"") {
                let string = try makeString(start..<position, isASCII: highBits < 0x80, openedAt: opening)
                position += 1
                return string
            }
            if byte == UInt8(ascii: "\\") {
                return try parseEscapedString(from: start, openedAt: opening)
            }
            guard byte >= 0x20 else {
                throw failure("unescaped control character in a string")
            }
            position += 1
        }
        throw failure("unterminated string", at: opening)
    }

    /// ASCII needs no validation (and `String(decoding:)` is much faster than `String(validating:)`, which
    /// looks up generic metadata per call); anything else is validated strictly.
    private func makeString(
        _ range: Range<Int>,
        isASCII: Bool,
        openedAt opening: Int
    ) throws(GraphQLLanguageError) -> String {
        let slice = UnsafeBufferPointer(rebasing: bytes[range])
        if isASCII {
            return String(decoding: slice, as: UTF8.self)
        }
        guard let string = String(validating: slice, as: UTF8.self) else {
            throw failure("a string is not valid UTF-8", at: opening)
        }
        return string
    }

    /// The slow path: copies the string's bytes with escapes resolved, then validates the result once.
    private mutating func parseEscapedString(from start: Int, openedAt opening: Int) throws(GraphQLLanguageError)
        -> String
    {
        var buffer: [UInt8] = []
        buffer.reserveCapacity(position - start + 16)
        buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<position]))
        while position < bytes.count {
            let byte = bytes[position]
            switch byte {
            case UInt8(ascii: "\""):
                position += 1
                guard let string = String(validating: buffer, as: UTF8.self) else {
                    throw failure("a string is not valid UTF-8", at: opening)
                }
                return string
            case UInt8(ascii: "\\"):
                try appendEscape(to: &buffer)
            case ..<0x20:
                throw failure("unescaped control character in a string")
            default:
                buffer.append(byte)
                position += 1
            }
        }
        throw failure("unterminated string", at: opening)
    }

    /// Resolves one escape sequence starting at its backslash.
    private mutating func appendEscape(to buffer: inout [UInt8]) throws(GraphQLLanguageError) {
        guard position + 1 < bytes.count else {
            throw failure("unterminated escape sequence")
        }
        let escaped = bytes[position + 1]
        let simple: UInt8? =
            switch escaped {
            case UInt8(ascii: "\""): UInt8(ascii: "\"")
            case UInt8(ascii: "\\"): UInt8(ascii: "\\")
            case UInt8(ascii: "/"): UInt8(ascii: "/")
            case UInt8(ascii: "b"): 0x08
            case UInt8(ascii: "f"): 0x0C
            case UInt8(ascii: "n"): 0x0A
            case UInt8(ascii: "r"): 0x0D
            case UInt8(ascii: "t"): 0x09
            default: nil
            }
        if let simple {
            buffer.append(simple)
            position += 2
            return
        }
        guard escaped == UInt8(ascii: "u") else {
            throw failure("invalid escape sequence")
        }
        let escapeStart = position
        let unit = try hexUnit(at: position + 2)
        position += 6
        var scalarValue = UInt32(unit)
        if (0xD800..<0xDC00).contains(unit) {
            guard position + 1 < bytes.count, bytes[position] == UInt8(ascii: "\\"),
                bytes[position + 1] == UInt8(ascii: "u")
            else {
                throw failure("a high surrogate escape is not followed by a low one", at: escapeStart)
            }
            let low = try hexUnit(at: position + 2)
            guard (0xDC00..<0xE000).contains(low) else {
                throw failure("a high surrogate escape is not followed by a low one", at: escapeStart)
            }
            position += 6
            scalarValue = 0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00)
        } else if (0xDC00..<0xE000).contains(unit) {
            throw failure("a low surrogate escape without a high one", at: escapeStart)
        }
        guard let scalar = Unicode.Scalar(scalarValue) else {
            throw failure("invalid unicode escape", at: escapeStart)
        }
        buffer.append(contentsOf: UTF8.encode(scalar)!)
    }

    private func hexUnit(at offset: Int) throws(GraphQLLanguageError) -> UInt16 {
        guard offset + 4 <= bytes.count else {
            throw failure("unterminated unicode escape")
        }
        var unit: UInt16 = 0
        for index in offset..<offset + 4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw failure("invalid unicode escape", at: index)
            }
            unit = unit << 4 | UInt16(digit)
        }
        return unit
    }

    // MARK: - Numbers

    /// Parses a number: exact `Int64` for plain integers that fit, `Double` otherwise.
    package mutating func parseNumber() throws(GraphQLLanguageError) -> GraphQLJSON {
        let start = position
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative {
            position += 1
        }
        guard position < bytes.count, isDigit(bytes[position]) else {
            throw failure("expected a digit")
        }
        var magnitude: UInt64 = 0
        var overflow = false
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
            if position < bytes.count, isDigit(bytes[position]) {
                throw failure("a number has a leading zero")
            }
        } else {
            while position < bytes.count, isDigit(bytes[position]) {
                let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[position] &- 48))
                overflow = overflow || overflow1 || overflow2
                magnitude = sum
                position += 1
            }
        }
        var isInteger = true
        if position < bytes.count, bytes[position] == UInt8(ascii: ".") {
            isInteger = false
            position += 1
            try skipDigits()
        }
        if position < bytes.count, bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E") {
            isInteger = false
            position += 1
            if position < bytes.count, bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                position += 1
            }
            try skipDigits()
        }
        if isInteger, !overflow {
            if !negative, magnitude <= UInt64(Int64.max) {
                return .int(Int64(magnitude))
            }
            if negative, magnitude <= UInt64(Int64.max) + 1 {
                return .int(Int64(truncatingIfNeeded: 0 &- magnitude))
            }
        }
        let lexeme = String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        guard let value = Double(lexeme), value.isFinite else {
            throw failure("a number is too large for a double", at: start)
        }
        return .double(value)
    }

    private mutating func skipDigits() throws(GraphQLLanguageError) {
        guard position < bytes.count, isDigit(bytes[position]) else {
            throw failure("expected a digit")
        }
        while position < bytes.count, isDigit(bytes[position]) {
            position += 1
        }
    }

    private func isDigit(_ byte: UInt8) -> Bool {
        byte &- UInt8(ascii: "0") < 10
    }
}
