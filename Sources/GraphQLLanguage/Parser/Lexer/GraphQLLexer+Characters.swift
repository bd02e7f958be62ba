extension GraphQLLexer {
    /// The Unicode scalar starting at `index` and the number of bytes it takes.
    package func scalar(at index: Int) -> (value: UInt32, length: Int) {
        let lead = UInt32(bytes[index])
        if lead < 0x80 {
            return (lead, 1)
        }
        let length = lead >= 0xF0 ? 4 : (lead >= 0xE0 ? 3 : 2)
        var value = lead & (0xFF >> UInt32(length + 1))
        for offset in 1..<length where index + offset < bytes.count {
            value = value << 6 | (UInt32(bytes[index + offset]) & 0x3F)
        }
        return (value, length)
    }

    /// The number of bytes of the UTF-8 sequence that starts with `lead`.
    @inline(__always)
    package static func sequenceLength(_ lead: UInt8) -> Int {
        lead < 0x80 ? 1 : (lead >= 0xF0 ? 4 : (lead >= 0xE0 ? 3 : 2))
    }

    /// The character at `index` as graphql-js shows it in messages: printable ASCII quoted, anything else as
    /// `U+XXXX`, and `<EOF>` past the end.
    package func describeCodePoint(at index: Int) -> String {
        guard index < bytes.count else {
            return "<EOF>"
        }
        let value = scalar(at: index).value
        if value >= 0x20 && value <= 0x7E {
            let character = String(UnicodeScalar(UInt8(value)))
            return value == 0x22 ? "'\"'" : "\"\(character)\""
        }
        return Self.codePointName(value)
    }

    /// `U+` and at least four upper-case hexadecimal digits.
    package static func codePointName(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return "U+" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// The text of at most `scalars` Unicode scalars starting at `start`, for quoting a bad escape sequence.
    package func prefixText(from start: Int, scalars: Int) -> String {
        var end = start
        var remaining = scalars
        while remaining > 0 && end < bytes.count {
            end += Self.sequenceLength(bytes[end])
            remaining -= 1
        }
        return text(start, min(end, bytes.count))
    }

    /// The value of a hexadecimal digit, or -1 for anything else (including the end of input).
    @inline(__always)
    package static func hexValue(_ byte: Int) -> Int {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x41...0x46: byte - 0x41 + 10
        case 0x61...0x66: byte - 0x61 + 10
        default: -1
        }
    }

    /// Whether `value` is a Unicode scalar value (a code point that is not a surrogate).
    @inline(__always)
    package static func isScalarValue(_ value: Int) -> Bool {
        (value >= 0 && value <= 0xD7FF) || (value >= 0xE000 && value <= 0x10FFFF)
    }
}
