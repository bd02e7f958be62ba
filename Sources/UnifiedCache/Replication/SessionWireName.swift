/// A session's name on the wire (``ReplicationSecret/sessionHash(of:)``: 64 lowercase hex digits) held as its 64
/// bytes, the key of the coordinator's session map: a received clear is matched against the sessions held here
/// straight from the bytes of its plaintext, with no String built and no 64-byte SipHash.
///
/// Two names are equal when their bytes are, as two ASCII strings are. A name that is not 64 bytes long has no
/// value: no session here is registered under one, so a clear naming it concerns none of them.
struct SessionWireName: Hashable, Sendable {
    /// The length of every name: the hex digits of an HMAC-SHA256.
    static let length = 64

    private let words: SIMD8<UInt64>

    /// The name whose bytes `bytes` are; nil unless they are ``length`` bytes.
    init?(_ bytes: UnsafeRawBufferPointer) {
        guard bytes.count == Self.length else { return nil }
        words = bytes.loadUnaligned(as: SIMD8<UInt64>.self)
    }

    /// The name `text` spells; nil unless its UTF-8 is ``length`` bytes.
    init?(_ text: String) {
        var text = text
        guard let name = text.withUTF8({ SessionWireName(UnsafeRawBufferPointer($0)) }) else { return nil }
        self = name
    }

    /// The first 16 bytes only: a name is 32 random-looking bytes written in hex (an HMAC output under the fleet's
    /// secret), so they separate names as well as all 64 would, and the hasher's per-process seed keeps the table
    /// safe from chosen collisions. Equality still compares every byte.
    func hash(into hasher: inout Hasher) {
        hasher.combine(words[0])
        hasher.combine(words[1])
    }
}
