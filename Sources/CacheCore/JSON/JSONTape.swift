/// A JSON document checked against the grammar and laid out flat: one token per value, in document order, each
/// container followed by its members (an object's as key, value, key, value). Decoding then walks the tape instead
/// of building a tree, and a value's text is read only when the caller's type asks for it.
struct JSONTape {
    /// The tape could not be built: the bytes are not JSON this parser takes (Foundation's decoder then decides).
    struct Refused: Error {}

    enum Kind: UInt8 {
        case object, array, string, number, `true`, `false`, null
    }

    struct Token {
        var kind: Kind
        /// A string: ASCII with no escape, so its bytes are its text. A number: an integer literal (no fraction, no
        /// exponent). An object: every key is such a string.
        var plain: Bool
        /// A string's first byte after the quote; a number's first byte; a container's bracket.
        var start: Int32
        /// A string's or number's length in bytes; a container's member count.
        var length: Int32
        /// The index of the token after this value and everything inside it.
        var end: Int32
    }

    /// Foundation's decoder refuses deeper documents too.
    static let maximumDepth = 512

    let tokens: [Token]

    /// Parses `bytes`; any departure from the grammar, or a document deeper than ``maximumDepth``, is refused.
    init(_ bytes: UnsafeRawBufferPointer) throws(Refused) {
        guard bytes.count < Int(Int32.max), bytes.baseAddress != nil else { throw Refused() }
        var parser = Parser(bytes: bytes)
        parser.tokens.reserveCapacity(bytes.count / 8 + 4)
        parser.skipWhitespace()
        try parser.value(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw Refused() }
        tokens = parser.tokens
    }

    private struct Parser {
        let base: UnsafePointer<UInt8>
        let count: Int
        var index = 0
        var tokens: [Token] = []

        init(bytes: UnsafeRawBufferPointer) {
            base = bytes.baseAddress!.assumingMemoryBound(to: UInt8.self)
            count = bytes.count
        }

        /// The byte at `at`, or 0 past the end: a zero byte is refused wherever the grammar is checked, so the end
        /// needs no check of its own.
        @inline(__always)
        func byte(_ at: Int) -> UInt8 {
            at < count ? base[at] : 0
        }

        mutating func skipWhitespace() {
            while true {
                switch byte(index) {
                case 0x20, 0x09, 0x0A, 0x0D: index += 1
                default: return
                }
            }
        }

        mutating func value(depth: Int) throws(Refused) {
            switch byte(index) {
            case UInt8(ascii: "{"): try container(.object, depth: depth + 1)
            case UInt8(ascii: "["): try container(.array, depth: depth + 1)
            case UInt8(ascii: "\""): _ = try string()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): try number()
            case UInt8(ascii: "t"): try literal("true", .true)
            case UInt8(ascii: "f"): try literal("false", .false)
            case UInt8(ascii: "n"): try literal("null", .null)
            default: throw Refused()
            }
        }

        /// An object or an array from its opening bracket: its members, comma-separated (an object's each a key, a
        /// colon and a value).
        mutating func container(_ kind: Kind, depth: Int) throws(Refused) {
            guard depth <= JSONTape.maximumDepth else { throw Refused() }
            let isObject = kind == .object
            let closing = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
            let at = tokens.count
            tokens.append(Token(kind: kind, plain: isObject, start: Int32(index), length: 0, end: 0))
            index += 1
            skipWhitespace()
            var count: Int32 = 0
            var plainKeys = true
            if byte(index) == closing {
                index += 1
            } else {
                while true {
                    if isObject {
                        guard byte(index) == UInt8(ascii: "\"") else { throw Refused() }
                        plainKeys = try string() && plainKeys
                        skipWhitespace()
                        guard byte(index) == UInt8(ascii: ":") else { throw Refused() }
                        index += 1
                        skipWhitespace()
                    }
                    try value(depth: depth)
                    count += 1
                    skipWhitespace()
                    let next = byte(index)
                    index += 1
                    if next == closing { break }
                    guard next == UInt8(ascii: ",") else { throw Refused() }
                    skipWhitespace()
                }
            }
            tokens[at].length = count
            tokens[at].plain = isObject && plainKeys
            tokens[at].end = Int32(tokens.count)
        }

        /// Scans a string from its opening quote; returns whether it is plain (ASCII, no escape).
        mutating func string() throws(Refused) -> Bool {
            index += 1
            let start = index
            var plain = true
            while true {
                // Eight bytes at a time while none of them needs a look (a quote, a backslash, a control character).
                // The lowest flagged byte is exact (the word tests can flag bytes above it falsely), so the scan
                // jumps straight to it.
                while index &+ 8 <= count {
                    let word = UnsafeRawPointer(base + index).loadUnaligned(as: UInt64.self)
                    let high = word & 0x8080_8080_8080_8080
                    let special = Self.hasByte(word, 0x22) | Self.hasByte(word, 0x5C) | Self.hasLess(word, 0x20)
                    guard special != 0 else {
                        if high != 0 { plain = false }
                        index &+= 8
                        continue
                    }
                    let before = special.trailingZeroBitCount / 8
                    if high & ((1 &<< UInt64(before * 8)) &- 1) != 0 { plain = false }
                    index &+= before
                    break
                }
                let byte = byte(index)
                if byte >= 0x20, byte != UInt8(ascii: "\""), byte != UInt8(ascii: "\\") {
                    if byte >= 0x80 { plain = false }
                    index += 1
                    continue
                }
                if byte == UInt8(ascii: "\"") { break }
                guard byte == UInt8(ascii: "\\") else { throw Refused() }  // a control character, or the end
                plain = false
                try escape()
            }
            tokens.append(
                Token(
                    kind: .string, plain: plain, start: Int32(start), length: Int32(index - start),
                    end: Int32(tokens.count + 1)))
            index += 1
            return plain
        }

        /// Checks one escape sequence (its backslash at `index`) and steps over it.
        mutating func escape() throws(Refused) {
            switch byte(index + 1) {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
                UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
                index += 2
            case UInt8(ascii: "u"):
                for offset in 2..<6 {
                    guard JSONTape.hexValue(byte(index + offset)) != nil else { throw Refused() }
                }
                index += 6
            default:
                throw Refused()
            }
        }

        /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
        mutating func number() throws(Refused) {
            let start = index
            var integer = true
            if byte(index) == UInt8(ascii: "-") { index += 1 }
            let first = byte(index)
            guard Self.isDigit(first) else { throw Refused() }
            index += 1
            if first != UInt8(ascii: "0") { skipDigits() }
            if byte(index) == UInt8(ascii: ".") {
                integer = false
                index += 1
                guard Self.isDigit(byte(index)) else { throw Refused() }
                skipDigits()
            }
            if byte(index) | 0x20 == UInt8(ascii: "e") {
                integer = false
                index += 1
                if byte(index) == UInt8(ascii: "+") || byte(index) == UInt8(ascii: "-") { index += 1 }
                guard Self.isDigit(byte(index)) else { throw Refused() }
                skipDigits()
            }
            tokens.append(
                Token(
                    kind: .number, plain: integer, start: Int32(start), length: Int32(index - start),
                    end: Int32(tokens.count + 1)))
        }

        /// Nonzero when a byte of `word` is below `limit` (at most 0x80): the classic word-at-a-time test, exact
        /// for whether any byte is.
        @inline(__always)
        static func hasLess(_ word: UInt64, _ limit: UInt8) -> UInt64 {
            (word &- UInt64(limit) &* 0x0101_0101_0101_0101) & ~word & 0x8080_8080_8080_8080
        }

        /// Nonzero when a byte of `word` is `byte`.
        @inline(__always)
        static func hasByte(_ word: UInt64, _ byte: UInt8) -> UInt64 {
            hasLess(word ^ (UInt64(byte) &* 0x0101_0101_0101_0101), 1)
        }

        @inline(__always)
        static func isDigit(_ byte: UInt8) -> Bool {
            byte &- UInt8(ascii: "0") < 10
        }

        mutating func skipDigits() {
            while Self.isDigit(byte(index)) { index += 1 }
        }

        mutating func literal(_ text: StaticString, _ kind: Kind) throws(Refused) {
            let length = text.utf8CodeUnitCount
            guard index + length <= count else { throw Refused() }
            for offset in 0..<length where base[index + offset] != text.utf8Start[offset] { throw Refused() }
            tokens.append(Token(kind: kind, plain: true, start: Int32(index), length: 0, end: Int32(tokens.count + 1)))
            index += length
        }
    }

    /// The value of one hexadecimal digit.
    @inline(__always)
    static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): UInt32(byte &- UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): UInt32(byte &- UInt8(ascii: "a") &+ 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): UInt32(byte &- UInt8(ascii: "A") &+ 10)
        default: nil
        }
    }
}
