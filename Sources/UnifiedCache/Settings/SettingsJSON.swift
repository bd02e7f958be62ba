/// A JSON value that remembers where it was written, so that a settings error can point at the line and column.
///
/// Foundation's parsers report positions only in their error text (and not at all for a value of the wrong type),
/// and settings files are small, so a strict RFC 8259 parser of our own is both simpler and more helpful: it keeps
/// every value's position, refuses duplicate keys (which JSONSerialization silently resolves) and bounds depth.
struct SettingsJSON: Sendable {
    enum Value: Sendable {
        case null
        case bool(Bool)
        /// The number as written, parsed by the reader into the type the field needs.
        case number(String)
        case string(String)
        case array([SettingsJSON])
        /// Members in file order.
        case object([(key: String, value: SettingsJSON)])
    }

    var value: Value
    /// 1-based line of the value's first character.
    var line: Int
    /// 1-based column (in characters, not bytes) of the value's first character.
    var column: Int

    /// What the value is, for "expected a number, got a string" messages.
    var kind: String {
        switch value {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }

    /// Parses a whole document.
    ///
    /// - Throws: `.invalidSettings` with the line and column of the first byte that breaks the grammar.
    static func parse(_ bytes: [UInt8]) throws(UnifiedCacheError) -> SettingsJSON {
        var parser = SettingsJSONParser(bytes: bytes)
        return try parser.parseDocument()
    }
}

/// The recursive-descent parser behind `SettingsJSON.parse`.
struct SettingsJSONParser {
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var column = 1
    private var depth = 0
    /// Settings nest three or four levels; 64 leaves room and keeps a hostile file from exhausting the stack.
    private static let maximumDepth = 64

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    mutating func parseDocument() throws(UnifiedCacheError) -> SettingsJSON {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) {
            index = 3  // a UTF-8 byte order mark, as some editors write
        }
        skipWhitespace()
        let document = try parseValue()
        skipWhitespace()
        guard index == bytes.count else {
            throw failure("expected the end of the document after the top-level value")
        }
        return document
    }

    private mutating func parseValue() throws(UnifiedCacheError) -> SettingsJSON {
        let (startLine, startColumn) = (line, column)
        guard let byte = peek() else {
            throw failure("expected a value, found the end of the document")
        }
        let value: SettingsJSON.Value
        switch byte {
        case UInt8(ascii: "{"): value = try nested { (parser) throws(UnifiedCacheError) in try parser.parseObject() }
        case UInt8(ascii: "["): value = try nested { (parser) throws(UnifiedCacheError) in try parser.parseArray() }
        case UInt8(ascii: "\""): value = .string(try parseString())
        case UInt8(ascii: "t"): value = try literal("true", .bool(true))
        case UInt8(ascii: "f"): value = try literal("false", .bool(false))
        case UInt8(ascii: "n"): value = try literal("null", .null)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): value = .number(try parseNumber())
        default: throw failure("expected a value (object, array, string, number, true, false or null)")
        }
        return SettingsJSON(value: value, line: startLine, column: startColumn)
    }

    private mutating func nested(
        _ body: (inout SettingsJSONParser) throws(UnifiedCacheError) -> SettingsJSON.Value
    ) throws(UnifiedCacheError) -> SettingsJSON.Value {
        depth += 1
        guard depth <= Self.maximumDepth else {
            throw failure("nested deeper than \(Self.maximumDepth) levels")
        }
        defer { depth -= 1 }
        return try body(&self)
    }

    private mutating func parseObject() throws(UnifiedCacheError) -> SettingsJSON.Value {
        advance()  // {
        var members: [(key: String, value: SettingsJSON)] = []
        var seen: Set<String> = []
        skipWhitespace()
        if peek() == UInt8(ascii: "}") {
            advance()
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard peek() == UInt8(ascii: "\"") else {
                throw failure("expected a member name in double quotes")
            }
            let (keyLine, keyColumn) = (line, column)
            let key = try parseString()
            guard seen.insert(key).inserted else {
                throw UnifiedCacheError(
                    code: .invalidSettings,
                    message: "duplicate member \(NameRules.quoted(key)) (which one should win?)",
                    line: keyLine,
                    column: keyColumn
                )
            }
            skipWhitespace()
            try expect(UInt8(ascii: ":"), "expected ':' after a member name")
            skipWhitespace()
            members.append((key, try parseValue()))
            skipWhitespace()
            if peek() == UInt8(ascii: ",") {
                advance()
                continue
            }
            try expect(UInt8(ascii: "}"), "expected ',' or '}' after a member")
            return .object(members)
        }
    }

    private mutating func parseArray() throws(UnifiedCacheError) -> SettingsJSON.Value {
        advance()  // [
        var elements: [SettingsJSON] = []
        skipWhitespace()
        if peek() == UInt8(ascii: "]") {
            advance()
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try parseValue())
            skipWhitespace()
            if peek() == UInt8(ascii: ",") {
                advance()
                continue
            }
            try expect(UInt8(ascii: "]"), "expected ',' or ']' after an array element")
            return .array(elements)
        }
    }

    private mutating func parseString() throws(UnifiedCacheError) -> String {
        advance()  // opening quote
        var scalars = String.UnicodeScalarView()
        var run: [UInt8] = []
        while true {
            guard let byte = peek() else {
                throw failure("unterminated string")
            }
            switch byte {
            case UInt8(ascii: "\""):
                try flush(&run, into: &scalars)
                advance()
                return String(scalars)
            case UInt8(ascii: "\\"):
                try flush(&run, into: &scalars)
                advance()
                scalars.append(try parseEscape())
            case 0..<0x20:
                throw failure("control character in a string (escape it, e.g. \\n)")
            default:
                run.append(byte)
                advance()
            }
        }
    }

    /// Decodes raw string bytes; invalid UTF-8 is refused rather than silently replaced.
    private func flush(_ run: inout [UInt8], into scalars: inout String.UnicodeScalarView) throws(UnifiedCacheError) {
        guard !run.isEmpty else {
            return
        }
        guard let text = String(validating: run, as: UTF8.self) else {
            throw failure("a string is not valid UTF-8")
        }
        scalars.append(contentsOf: text.unicodeScalars)
        run.removeAll(keepingCapacity: true)
    }

    private mutating func parseEscape() throws(UnifiedCacheError) -> Unicode.Scalar {
        guard let byte = peek() else {
            throw failure("unterminated escape")
        }
        let scalar: Unicode.Scalar
        switch byte {
        case UInt8(ascii: "\""): scalar = "\""
        case UInt8(ascii: "\\"): scalar = "\\"
        case UInt8(ascii: "/"): scalar = "/"
        case UInt8(ascii: "b"): scalar = "\u{08}"
        case UInt8(ascii: "f"): scalar = "\u{0C}"
        case UInt8(ascii: "n"): scalar = "\n"
        case UInt8(ascii: "r"): scalar = "\r"
        case UInt8(ascii: "t"): scalar = "\t"
        case UInt8(ascii: "u"):
            advance()
            return try parseUnicodeEscape()
        default: throw failure("unknown escape (expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u)")
        }
        advance()
        return scalar
    }

    private mutating func parseUnicodeEscape() throws(UnifiedCacheError) -> Unicode.Scalar {
        let first = try parseHex4()
        if (0xD800..<0xDC00).contains(first) {
            guard peek() == UInt8(ascii: "\\") else {
                throw failure("a high surrogate \\u escape must be followed by a low one")
            }
            advance()
            try expect(UInt8(ascii: "u"), "a high surrogate \\u escape must be followed by a low one")
            let second = try parseHex4()
            guard (0xDC00..<0xE000).contains(second),
                let scalar = Unicode.Scalar(0x10000 + ((first - 0xD800) << 10) + (second - 0xDC00))
            else {
                throw failure("invalid surrogate pair")
            }
            return scalar
        }
        guard let scalar = Unicode.Scalar(first) else {
            throw failure("a lone low surrogate is not a character")
        }
        return scalar
    }

    private mutating func parseHex4() throws(UnifiedCacheError) -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = peek(), let digit = Self.hexValue(byte) else {
                throw failure("expected four hexadecimal digits after \\u")
            }
            value = value << 4 | digit
            advance()
        }
        return value
    }

    private static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`, returned as written.
    private mutating func parseNumber() throws(UnifiedCacheError) -> String {
        let start = index
        if peek() == UInt8(ascii: "-") {
            advance()
        }
        if peek() == UInt8(ascii: "0") {
            advance()
        } else {
            try digits("expected a digit")
        }
        if peek() == UInt8(ascii: ".") {
            advance()
            try digits("expected a digit after the decimal point")
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            advance()
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") {
                advance()
            }
            try digits("expected a digit in the exponent")
        }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func digits(_ message: String) throws(UnifiedCacheError) {
        guard let byte = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
            throw failure(message)
        }
        while let byte = peek(), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            advance()
        }
    }

    private mutating func literal(_ word: String, _ value: SettingsJSON.Value) throws(UnifiedCacheError)
        -> SettingsJSON.Value
    {
        for expected in word.utf8 {
            guard peek() == expected else {
                throw failure("expected \(word)")
            }
            advance()
        }
        return value
    }

    private mutating func expect(_ byte: UInt8, _ message: String) throws(UnifiedCacheError) {
        guard peek() == byte else {
            throw failure(message)
        }
        advance()
    }

    private mutating func skipWhitespace() {
        while let byte = peek(),
            byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\t")
                || byte == UInt8(ascii: "\r")
        {
            advance()
        }
    }

    private func peek() -> UInt8? {
        index < bytes.count ? bytes[index] : nil
    }

    /// Moves one byte on, counting lines at `\n` and columns in characters (UTF-8 continuation bytes do not count).
    private mutating func advance() {
        let byte = bytes[index]
        index += 1
        if byte == UInt8(ascii: "\n") {
            line += 1
            column = 1
        } else if byte & 0xC0 != 0x80 {
            column += 1
        }
    }

    private func failure(_ message: String) -> UnifiedCacheError {
        let found: String
        if let byte = peek() {
            found =
                byte >= 0x20 && byte < 0x7F
                ? ", found '\(Character(Unicode.Scalar(byte)))'" : ", found byte 0x\(String(byte, radix: 16))"
        } else {
            found = ""
        }
        return UnifiedCacheError(code: .invalidSettings, message: message + found, line: line, column: column)
    }
}
