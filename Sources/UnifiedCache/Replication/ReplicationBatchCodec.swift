/// The plaintext of a sealed batch (format v4): several clears that were queued together, in the order they were
/// made, under one seal and one counter.
///
/// `count (2) | per clear: age offset (4) | length (4) | the clear's v3 plaintext (ReplicationMessageCodec)`
///
/// Integers are big-endian. A clear's age offset is how many milliseconds before the envelope's issued-at (the
/// batch's latest clear) it was made, so each clear keeps its own issue time for the session rules. The decoder is
/// total: a count of zero or above ``maximumClears``, a length beyond what is left, an offset above the lifetime the
/// caller allows, a clear that does not decode and trailing bytes make it return nil, and it never traps. A batch
/// that does not decode is refused whole.
enum ReplicationBatchCodec {
    /// Clears one batch holds at most, whatever a sender is configured with (the sender's own cap is
    /// ``ReplicationConfiguration/maximumClearsPerMessage``; past it a batch is split).
    static let maximumClears = 1_024
    /// Bytes a batch adds to a message: the count.
    static let headerLength = 2
    /// Bytes a batch adds per clear, besides the clear's own plaintext: its age offset and length.
    static let perClearOverhead = 8

    /// One clear of a batch as it is sent: its v3 plaintext and its offset.
    struct Item {
        /// The clear's `ReplicationMessageCodec` encoding.
        var plaintext: [UInt8]
        /// Milliseconds before the batch's issued-at the clear was made (0 for the latest).
        var ageOffset: UInt32
    }

    /// The batch of `items`, in order (1 … ``maximumClears`` of them).
    static func encode(_ items: [Item]) -> [UInt8] {
        precondition(!items.isEmpty && items.count <= maximumClears, "a batch holds 1…\(maximumClears) clears")
        var bytes: [UInt8] = []
        bytes.reserveCapacity(headerLength + items.reduce(0) { $0 + perClearOverhead + $1.plaintext.count })
        bytes.append(UInt8(truncatingIfNeeded: items.count >> 8))
        bytes.append(UInt8(truncatingIfNeeded: items.count))
        for item in items {
            append(item.ageOffset, to: &bytes)
            append(UInt32(item.plaintext.count), to: &bytes)
            bytes.append(contentsOf: item.plaintext)
        }
        return bytes
    }

    /// The clears `bytes` hold, each with its age offset, or nil when they are not exactly one well-formed batch
    /// whose offsets are all at most `maximumAgeOffset` milliseconds.
    static func decode(
        _ bytes: [UInt8], maximumAgeOffset: Int64
    ) -> [(message: ReplicationMessage, ageOffset: Int64)]? {
        guard let checked = check(bytes, maximumAgeOffset: maximumAgeOffset) else { return nil }
        var clears: [(message: ReplicationMessage, ageOffset: Int64)] = []
        clears.reserveCapacity(checked.count)
        for clear in checked {
            guard let message = ReplicationMessageCodec.decode(bytes[clear.range]) else { return nil }
            clears.append((message, clear.ageOffset))
        }
        return clears
    }

    /// One clear of a checked batch: where its plaintext is, its age offset, and what checking it told.
    struct CheckedClear {
        var range: Range<Int>
        var ageOffset: Int64
        var checked: ReplicationMessageCodec.Checked
    }

    /// The clears of `bytes`, checked as ``decode(_:maximumAgeOffset:)`` reads them but not built: nil exactly when
    /// it returns nil (so a batch is still refused whole before any of it is applied).
    static func check(_ bytes: [UInt8], maximumAgeOffset: Int64) -> [CheckedClear]? {
        check(bytes, maximumAgeOffset: maximumAgeOffset) { $0 }
    }

    /// ``check(_:maximumAgeOffset:)``, each clear made into what the caller keeps as it is checked (one array, not a
    /// second one mapped from the first).
    static func check<Clear>(
        _ bytes: [UInt8], maximumAgeOffset: Int64, _ make: (CheckedClear) -> Clear
    ) -> [Clear]? {
        bytes.withUnsafeBufferPointer { bytes -> [Clear]? in
            guard bytes.count >= headerLength else { return nil }
            let count = Int(bytes[0]) << 8 | Int(bytes[1])
            guard count >= 1, count <= maximumClears else { return nil }
            var offset = headerLength
            var clears: [Clear] = []
            clears.reserveCapacity(count)
            for _ in 0..<count {
                guard bytes.count - offset >= perClearOverhead else { return nil }
                let age = Int64(integer(bytes, at: offset))
                let length = Int(integer(bytes, at: offset + 4))
                offset += perClearOverhead
                guard age <= maximumAgeOffset, length <= bytes.count - offset else { return nil }
                let range = offset..<(offset + length)
                let clear = UnsafeBufferPointer(rebasing: bytes[range])
                guard let checked = ReplicationMessageCodec.check(clear, origin: offset) else { return nil }
                offset += length
                clears.append(make(CheckedClear(range: range, ageOffset: age, checked: checked)))
            }
            return offset == bytes.count ? clears : nil
        }
    }

    private static func append(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: value >> shift)) }
    }

    private static func integer(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int) -> UInt32 {
        UInt32(bytes[offset]) << 24 | UInt32(bytes[offset + 1]) << 16 | UInt32(bytes[offset + 2]) << 8
            | UInt32(bytes[offset + 3])
    }
}
