/// A sender id (``ReplicationEnvelope/senderLength`` bytes) held as two words: a received message's sender is
/// compared with this replica's, looked up among the opening keys and in the anti-replay windows on every message,
/// with no array made and no hashing byte by byte.
struct ReplicationSenderID: Hashable, Sendable {
    private let high: UInt64
    private let low: UInt64

    /// The id whose bytes `bytes` are, which must be ``ReplicationEnvelope/senderLength`` long.
    init(_ bytes: UnsafeRawBufferPointer) {
        precondition(bytes.count == ReplicationEnvelope.senderLength, "a sender id is 16 bytes")
        high = bytes.loadUnaligned(as: UInt64.self)
        low = bytes.loadUnaligned(fromByteOffset: 8, as: UInt64.self)
    }

    /// The id `bytes` spell, which must be ``ReplicationEnvelope/senderLength`` long.
    init(_ bytes: [UInt8]) {
        self = bytes.withUnsafeBytes { ReplicationSenderID($0) }
    }

    /// The id's bytes, as sent.
    var bytes: [UInt8] {
        withUnsafeBytes(of: (high, low)) { Array($0) }
    }
}
