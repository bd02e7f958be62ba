/// RESP's request form, written straight into a byte buffer: an array of bulk strings (`*<n>`, then `$<length>` and
/// the bytes of each), as hiredis's `redisFormatCommandArgv` writes it, with no intermediate command and no `sprintf`.
enum RedisRESPFormat {
    /// One command of binary-safe arguments.
    static func appendCommand(_ arguments: [[UInt8]], to output: inout [UInt8]) {
        var size = 16
        for argument in arguments { size += argument.count + 16 }
        output.reserveCapacity(output.count + size)
        appendHeader(UInt8(ascii: "*"), arguments.count, to: &output)
        for argument in arguments { appendBulk(argument, to: &output) }
    }

    /// `$<length>\r\n<bytes>\r\n`.
    static func appendBulk(_ bytes: [UInt8], to output: inout [UInt8]) {
        appendHeader(UInt8(ascii: "$"), bytes.count, to: &output)
        output.append(contentsOf: bytes)
        appendLineEnd(to: &output)
    }

    /// `<marker><decimal count>\r\n`.
    static func appendHeader(_ marker: UInt8, _ count: Int, to output: inout [UInt8]) {
        output.append(marker)
        if count < 10 {
            // Every command's own count and most short arguments' lengths: one digit, no division.
            output.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: count))
        } else {
            var divisor = 10
            while divisor <= count / 10 { divisor *= 10 }
            var rest = count
            while divisor > 0 {
                output.append(UInt8(ascii: "0") + UInt8(truncatingIfNeeded: rest / divisor))
                rest %= divisor
                divisor /= 10
            }
        }
        appendLineEnd(to: &output)
    }

    static func appendLineEnd(to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\r"))
        output.append(UInt8(ascii: "\n"))
    }
}
