/// Turns UTF-8 byte offsets into 1-based line and column numbers.
///
/// The parser asks for locations in increasing order, so the locator keeps a cursor and only scans the bytes
/// between two requests: the whole document is scanned once, however long its lines are.
package struct GraphQLSourceLocator {
    private let bytes: UnsafeBufferPointer<UInt8>
    private var offset = 0
    private var line = 1
    private var column = 1

    package init(bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// The location of the byte at `target` (or of the end of input when `target` is the byte count).
    package mutating func location(of target: Int) -> GraphQLSourceLocation {
        if target < offset {
            offset = 0
            line = 1
            column = 1
        }
        let end = min(target, bytes.count)
        var index = offset
        while index < end {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") {
                line += 1
                column = 1
            } else if byte == UInt8(ascii: "\r") {
                // "\r\n" is one terminator: the "\n" that follows counts it.
                if index + 1 >= bytes.count || bytes[index + 1] != UInt8(ascii: "\n") {
                    line += 1
                    column = 1
                }
            } else if byte & 0xC0 != 0x80 {
                // Only the first byte of each UTF-8 sequence starts a new Unicode scalar.
                column += 1
            }
            index += 1
        }
        offset = end
        return GraphQLSourceLocation(line: line, column: column)
    }

    /// The location of `target`, scanning from the start; for errors, which are rare.
    package static func location(in bytes: UnsafeBufferPointer<UInt8>, of target: Int) -> GraphQLSourceLocation {
        var locator = GraphQLSourceLocator(bytes: bytes)
        return locator.location(of: target)
    }
}
