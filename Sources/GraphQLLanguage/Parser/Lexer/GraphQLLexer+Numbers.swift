extension GraphQLLexer {
    /// Reads an IntValue or FloatValue.
    ///
    /// The grammar forbids leading zeros (`00`), empty fractions or exponents (`1.`, `1e`) and a number directly
    /// followed by `.` or a name start (`1.2.3`, `123abc`, `0x1F`).
    package func readNumber(start: Int) throws(GraphQLLanguageError) -> GraphQLToken {
        var index = start
        var code = byte(at: index)
        var isFloat = false
        if code == 0x2D {  // "-"
            index += 1
            code = byte(at: index)
        }
        if code == 0x30 {  // "0"
            index += 1
            code = byte(at: index)
            if Self.isDigit(code) {
                throw syntaxError(
                    "Invalid number, unexpected digit after 0: \(describeCodePoint(at: index)).",
                    at: index
                )
            }
        } else {
            index = try readDigits(from: index)
            code = byte(at: index)
        }
        if code == 0x2E {  // "."
            isFloat = true
            index = try readDigits(from: index + 1)
            code = byte(at: index)
        }
        if code == 0x45 || code == 0x65 {  // "E" or "e"
            isFloat = true
            index += 1
            code = byte(at: index)
            if code == 0x2B || code == 0x2D {  // "+" or "-"
                index += 1
            }
            index = try readDigits(from: index)
            code = byte(at: index)
        }
        if code == 0x2E || Self.isNameStart(code) {
            throw syntaxError("Invalid number, expected digit but got: \(describeCodePoint(at: index)).", at: index)
        }
        return GraphQLToken(kind: isFloat ? .float : .int, start: start, end: index)
    }

    /// Reads one or more digits and returns the offset after them.
    private func readDigits(from start: Int) throws(GraphQLLanguageError) -> Int {
        guard Self.isDigit(byte(at: start)) else {
            throw syntaxError("Invalid number, expected digit but got: \(describeCodePoint(at: start)).", at: start)
        }
        var index = start + 1
        while Self.isDigit(byte(at: index)) {
            index += 1
        }
        return index
    }
}
