/// Recognises, in one pass and without allocating, the URLs almost every request carries:
/// `http(s)://host[:port][/path][?query][#fragment]` with a host of letters, digits, dots and hyphens, a port of at
/// most 65535, and a path, query and fragment of RFC 3986 characters only.
///
/// libcurl's parser accepts every such URL, so ``RequestValidation`` needs no second opinion for them. Anything
/// else (userinfo, IPv6 literals, percent-encoded or international hosts, spaces, other schemes) is not plain and
/// goes through libcurl's own parser, which decides and names the error. `false` means "ask libcurl", never
/// "invalid".
enum PlainURL {
    static func isPlain(_ url: String) -> Bool {
        let verdict = url.utf8.withContiguousStorageIfAvailable { isPlain(bytes: $0) }
        return verdict ?? isPlain(bytes: Array(url.utf8))
    }

    static func isPlain<Bytes: RandomAccessCollection<UInt8>>(bytes: Bytes) -> Bool where Bytes.Index == Int {
        var index = bytes.startIndex
        let end = bytes.endIndex
        guard consume("http", of: bytes, at: &index) else { return false }
        _ = consume("s", of: bytes, at: &index)
        guard consume("://", of: bytes, at: &index) else { return false }

        // Host: a label character first and last, dots and hyphens between.
        let hostStart = index
        while index < end, isHostByte(bytes[index]) { index += 1 }
        guard index > hostStart, isLabelByte(bytes[hostStart]), isLabelByte(bytes[index - 1]) else { return false }

        if index < end, bytes[index] == UInt8(ascii: ":") {
            index += 1
            var port = 0
            let portStart = index
            while index < end, (48...57).contains(bytes[index]), index - portStart < 5 {
                port = port * 10 + Int(bytes[index] - 48)
                index += 1
            }
            guard index > portStart, port <= 65535 else { return false }
        }
        guard
            index == end || bytes[index] == UInt8(ascii: "/") || bytes[index] == UInt8(ascii: "?")
                || bytes[index] == UInt8(ascii: "#")
        else { return false }
        while index < end {
            guard isPathByte(bytes[index]) else { return false }
            index += 1
        }
        return true
    }

    /// Moves `index` past `literal` (ASCII, any case) if the bytes there spell it. A function with an inout index
    /// rather than a closure over a local one: a captured variable is boxed and checked for exclusive access at run
    /// time, on every request.
    private static func consume<Bytes: RandomAccessCollection<UInt8>>(
        _ literal: StaticString, of bytes: Bytes, at index: inout Int
    ) -> Bool where Bytes.Index == Int {
        let count = literal.utf8CodeUnitCount
        guard bytes.endIndex - index >= count else { return false }
        for offset in 0..<count {
            guard bytes[index + offset].lowercasedASCII == literal.utf8Start[offset] else { return false }
        }
        index += count
        return true
    }

    private static func isLabelByte(_ byte: UInt8) -> Bool {
        (48...57).contains(byte) || (65...90).contains(byte) || (97...122).contains(byte)
    }

    private static func isHostByte(_ byte: UInt8) -> Bool {
        isLabelByte(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
    }

    /// RFC 3986 unreserved and reserved characters and `%` (a percent-encoding's first byte).
    private static func isPathByte(_ byte: UInt8) -> Bool {
        if isHostByte(byte) { return true }
        switch byte {
        case UInt8(ascii: "_"), UInt8(ascii: "~"), UInt8(ascii: "/"), UInt8(ascii: "?"), UInt8(ascii: "#"),
            UInt8(ascii: "["), UInt8(ascii: "]"), UInt8(ascii: "@"), UInt8(ascii: "!"), UInt8(ascii: "$"),
            UInt8(ascii: "&"), UInt8(ascii: "'"), UInt8(ascii: "("), UInt8(ascii: ")"), UInt8(ascii: "*"),
            UInt8(ascii: "+"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "="), UInt8(ascii: ":"),
            UInt8(ascii: "%"):
            return true
        default:
            return false
        }
    }
}
