/// A response's header lines as the loop recorded them (`Name: value`, one per `\n`, without CR or LF), kept as
/// bytes.
///
/// Callers mostly read a few fields by name (a cache reads `Cache-Control`, `ETag`, `Date` and a few more), so
/// ``CurlHTTPClient/Headers`` looks names up here and makes a `String` only for the values asked for, instead of two
/// strings per field of every response. A line without a colon is not a field; a value starts after the colon and
/// any spaces or tabs.
struct ReceivedHeaderBlock: Sendable {
    let bytes: [UInt8]

    /// A copy of the recorded lines: the pooled handle keeps its buffer for its next request.
    init(copying lines: [UInt8]) {
        bytes = lines.withUnsafeBufferPointer { Array($0) }
    }

    /// The number of fields.
    var count: Int {
        var count = 0
        forEachField { _, _, _ in
            count += 1
            return true
        }
        return count
    }

    /// Every field as strings, in order.
    func fields() -> [(name: String, value: String)] {
        var fields: [(name: String, value: String)] = []
        forEachField { buffer, name, value in
            fields.append((name: Self.string(buffer, name), value: Self.string(buffer, value)))
            return true
        }
        return fields
    }

    /// The value of the first field named `name` (ASCII case ignored).
    func firstValue(of name: String) -> String? {
        var found: String?
        withNameBytes(name) { wanted in
            forEachField { buffer, fieldName, value in
                guard Self.matches(buffer, fieldName, wanted) else { return true }
                found = Self.string(buffer, value)
                return false
            }
        }
        return found
    }

    /// The values of every field named `name` (ASCII case ignored), in order.
    func values(of name: String) -> [String] {
        var values: [String] = []
        withNameBytes(name) { wanted in
            forEachField { buffer, fieldName, value in
                if Self.matches(buffer, fieldName, wanted) { values.append(Self.string(buffer, value)) }
                return true
            }
        }
        return values
    }

    /// Whether a field named `name` (ASCII case ignored) is present.
    func contains(_ name: String) -> Bool {
        var found = false
        withNameBytes(name) { wanted in
            forEachField { buffer, fieldName, _ in
                found = Self.matches(buffer, fieldName, wanted)
                return !found
            }
        }
        return found
    }

    /// Calls `body` with the name's and the value's byte ranges of each field in order, until it returns false.
    private func forEachField(_ body: (UnsafeBufferPointer<UInt8>, Range<Int>, Range<Int>) -> Bool) {
        bytes.withUnsafeBufferPointer { buffer in
            var start = 0
            while start < buffer.count {
                var end = start
                while end < buffer.count, buffer[end] != UInt8(ascii: "\n") { end += 1 }
                var colon = start
                while colon < end, buffer[colon] != UInt8(ascii: ":") { colon += 1 }
                if colon < end {
                    var valueStart = colon + 1
                    while valueStart < end,
                        buffer[valueStart] == UInt8(ascii: " ") || buffer[valueStart] == UInt8(ascii: "\t")
                    {
                        valueStart += 1
                    }
                    guard body(buffer, start..<colon, valueStart..<end) else { return }
                }
                start = end + 1
            }
        }
    }

    private func withNameBytes(_ name: String, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
        if name.utf8.withContiguousStorageIfAvailable(body) == nil {
            Array(name.utf8).withUnsafeBufferPointer(body)
        }
    }

    private static func matches(
        _ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>, _ wanted: UnsafeBufferPointer<UInt8>
    ) -> Bool {
        guard range.count == wanted.count else { return false }
        var offset = 0
        for index in range {
            let a = buffer[index]
            let b = wanted[offset]
            offset += 1
            if a == b { continue }
            if a.lowercasedASCII != b.lowercasedASCII { return false }
        }
        return true
    }

    private static func string(_ buffer: UnsafeBufferPointer<UInt8>, _ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: buffer[range]), as: UTF8.self)
    }
}
