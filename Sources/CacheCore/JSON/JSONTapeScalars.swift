/// The scalars a container reads from one token, each as Foundation's `JSONDecoder` would read it, or refused
/// (``JSONTapeDecoder/refuse()``) wherever this reading is not sure to agree with it.
protocol JSONTapeScalar {
    static func read(_ decoder: JSONTapeDecoder, at token: Int) throws -> Self
}

extension Bool: JSONTapeScalar {
    static func read(_ decoder: JSONTapeDecoder, at token: Int) throws -> Bool {
        switch decoder.tokens[token].kind {
        case .true: true
        case .false: false
        default: throw decoder.refuse()
        }
    }
}

extension String: JSONTapeScalar {
    static func read(_ decoder: JSONTapeDecoder, at token: Int) throws -> String {
        let token = decoder.tokens[token]
        guard token.kind == .string else { throw decoder.refuse() }
        let text = UnsafeRawBufferPointer(
            rebasing: decoder.bytes[Int(token.start)..<Int(token.start) + Int(token.length)])
        // Typed bytes: the standard library's contiguous fast path (a raw buffer takes its generic one).
        if token.plain { return String(decoding: text.assumingMemoryBound(to: UInt8.self), as: UTF8.self) }
        guard let unescaped = JSONStringUnescaping.unescape(text),
            let string = unescaped.withUnsafeBufferPointer({ String(validating: $0, as: UTF8.self) })
        else { throw decoder.refuse() }
        return string
    }
}

extension FixedWidthInteger where Self: JSONTapeScalar {
    /// An integer literal only: Foundation's decoder also takes `1.0` or `1e2` for an integer, which is left to it.
    static func read(_ decoder: JSONTapeDecoder, at token: Int) throws -> Self {
        let token = decoder.tokens[token]
        guard token.kind == .number, token.plain else { throw decoder.refuse() }
        var at = Int(token.start)
        let end = at + Int(token.length)
        let negative = decoder.bytes[at] == UInt8(ascii: "-")
        if negative { at += 1 }
        var magnitude: UInt64 = 0
        while at < end {
            let (times10, overflowed) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, carried) = times10.addingReportingOverflow(UInt64(decoder.bytes[at] &- UInt8(ascii: "0")))
            guard !overflowed, !carried else { throw decoder.refuse() }
            magnitude = sum
            at += 1
        }
        if !negative || magnitude == 0 {
            guard let value = Self(exactly: magnitude) else { throw decoder.refuse() }
            return value
        }
        guard Self.isSigned, magnitude - 1 <= UInt64(Self.max) else { throw decoder.refuse() }
        // Two's complement of the magnitude, which fits: Self.min's magnitude is Self.max + 1.
        return Self(truncatingIfNeeded: 0 &- magnitude)
    }
}

extension Int: JSONTapeScalar {}
extension Int8: JSONTapeScalar {}
extension Int16: JSONTapeScalar {}
extension Int32: JSONTapeScalar {}
extension Int64: JSONTapeScalar {}
extension UInt: JSONTapeScalar {}
extension UInt8: JSONTapeScalar {}
extension UInt16: JSONTapeScalar {}
extension UInt32: JSONTapeScalar {}
extension UInt64: JSONTapeScalar {}

extension Double: JSONTapeScalar {
    static func read(_ decoder: JSONTapeDecoder, at token: Int) throws -> Double {
        try decoder.floatingPoint(at: token) { Double($0) }
    }
}

extension Float: JSONTapeScalar {
    static func read(_ decoder: JSONTapeDecoder, at token: Int) throws -> Float {
        try decoder.floatingPoint(at: token) { Float($0) }
    }
}

extension JSONTapeDecoder {
    /// A number literal parsed by the standard library (correctly rounded, as Foundation's `strtod` is), refused
    /// when it overflows or underflows (Foundation refuses those, or may).
    func floatingPoint<F: BinaryFloatingPoint>(at token: Int, _ parse: (Substring) -> F?) throws -> F {
        let token = tokens[token]
        guard token.kind == .number else { throw refuse() }
        let literal = String(
            decoding: UnsafeRawBufferPointer(rebasing: bytes[Int(token.start)..<Int(token.start) + Int(token.length)])
                .assumingMemoryBound(to: UInt8.self),
            as: UTF8.self)
        guard let value = parse(literal[...]), value.isFinite, value.isZero || value.isNormal else {
            throw refuse()
        }
        if value.isZero {
            // Zero only from a literal of zeros: anything else underflowed.
            for byte in literal.utf8 {
                if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { break }
                if byte >= UInt8(ascii: "1"), byte <= UInt8(ascii: "9") { throw refuse() }
            }
        }
        return value
    }
}

/// A JSON string's text with its escapes resolved, as UTF-8 (not yet validated).
enum JSONStringUnescaping {
    /// Nil for a lone surrogate (Foundation refuses those).
    static func unescape(_ text: UnsafeRawBufferPointer) -> [UInt8]? {
        var out: [UInt8] = []
        out.reserveCapacity(text.count)
        var at = 0
        while at < text.count {
            let byte = text[at]
            guard byte == UInt8(ascii: "\\") else {
                out.append(byte)
                at += 1
                continue
            }
            let kind = text[at + 1]
            at += 2
            switch kind {
            case UInt8(ascii: "b"): out.append(0x08)
            case UInt8(ascii: "f"): out.append(0x0C)
            case UInt8(ascii: "n"): out.append(0x0A)
            case UInt8(ascii: "r"): out.append(0x0D)
            case UInt8(ascii: "t"): out.append(0x09)
            case UInt8(ascii: "u"):
                var unit = hex4(text, at)
                at += 4
                if (0xD800..<0xDC00).contains(unit) {
                    guard at + 6 <= text.count, text[at] == UInt8(ascii: "\\"), text[at + 1] == UInt8(ascii: "u")
                    else { return nil }
                    let low = hex4(text, at + 2)
                    guard (0xDC00..<0xE000).contains(low) else { return nil }
                    unit = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
                    at += 6
                } else if (0xDC00..<0xE000).contains(unit) {
                    return nil
                }
                guard let scalar = Unicode.Scalar(unit) else { return nil }
                out.append(contentsOf: UTF8.encode(scalar)!)
            default: out.append(kind)  // " \ /
            }
        }
        return out
    }

    /// Four hexadecimal digits the tape already checked.
    private static func hex4(_ text: UnsafeRawBufferPointer, _ at: Int) -> UInt32 {
        var value: UInt32 = 0
        for offset in 0..<4 { value = value << 4 | (JSONTape.hexValue(text[at + offset]) ?? 0) }
        return value
    }
}
