import CacheCrypto

/// The fleet secret the second level derives its names and value keys from: every namespace, entry and tag name sent
/// to the store is a keyed hash (HMAC-SHA256) under a key derived from it, so the store never sees a session id,
/// principal, cache key, account id or record key, and names cannot be guessed from short ids without the secret;
/// every value is sealed (AES-256-GCM) under a per-process key derived from it (`SecondLevelSealing`).
///
/// The same on every replica of the fleet: at least 32 random bytes written `base64:…` or `hex:…`, a
/// comma-separated list (current first) during a rotation. It may be the replication secret's keys: the second
/// level derives keys of its own from them with HKDF-SHA256 ("ucache second level names v2"), so no name equals a
/// replication name.
public struct SecondLevelSecret: Sendable {
    /// The environment variable ``init(environment:)`` reads first.
    public static let environmentVariable = "UCACHE_L2_SECRET"

    let ring: FleetKeyRing
    /// The naming key derived from the current master key.
    private let names: HMACKey

    /// One master key of at least 32 random bytes.
    ///
    /// - Throws: `.invalidSettings` when the key is shorter than 32 bytes.
    public init(_ secret: [UInt8]) throws(UnifiedCacheError) {
        try self.init(keys: [secret])
    }

    /// Master keys for a rotation, current first.
    ///
    /// - Throws: `.invalidSettings` when the list is empty, a key is shorter than 32 bytes, or a key repeats.
    public init(keys: [[UInt8]]) throws(UnifiedCacheError) {
        try self.init(ring: FleetKeyRing(masters: keys, name: "second-level"))
    }

    init(ring: FleetKeyRing) {
        self.init(ring: ring, naming: ring.current)
    }

    /// Names derived from `key` (one of the ring's) instead of the current key.
    private init(ring: FleetKeyRing, naming key: FleetKeyRing.Key) {
        self.ring = ring
        names = HMACKey(key: key.derivedKey("ucache second level names v2"))
    }

    /// The secret naming with each key of the ring, current first: clears reach the names every key gives, so a
    /// replica still naming with another key of a rotation never reads what a clear here dropped.
    var everyKey: [SecondLevelSecret] {
        [self] + ring.keys.dropFirst().map { SecondLevelSecret(ring: ring, naming: $0) }
    }

    /// The secret from `UCACHE_L2_SECRET`, else from `UCACHE_REPLICATION_SECRET`; nil when neither is set.
    ///
    /// - Throws: `.invalidSettings` when the one found is not a list of `base64:`/`hex:` keys of 32 bytes or more.
    public init?(environment: [String: String]) throws(UnifiedCacheError) {
        let variable = [Self.environmentVariable, ReplicationSecret.environmentVariable].first {
            !(environment[$0] ?? "").isEmpty
        }
        guard let variable, let text = environment[variable] else { return nil }
        try self.init(ring: FleetKeyRing(text: text, name: "second-level", place: variable))
    }

    /// The name of `text` in `space` (`session`, `entry`, `tag`, …): base64url (no padding) of the first 16 bytes
    /// of HMAC-SHA256 over `space`, a zero byte and `text`. 128 bits: collisions are out of reach, names stay short.
    func name(_ space: String, _ text: String) -> String {
        name(space, [text])
    }

    /// The name of `parts` joined by zero bytes. The message and the code live on the stack: a name is made on
    /// every read, and neither outlives it.
    func name(_ space: String, _ parts: [String]) -> String {
        var size = space.utf8.count + parts.count
        for part in parts { size += part.utf8.count }
        return withUnsafeTemporaryAllocation(of: UInt8.self, capacity: size) { message in
            var offset = Self.copy(space, into: message, at: 0)
            for part in parts {
                message[offset] = 0
                offset = Self.copy(part, into: message, at: offset + 1)
            }
            return withUnsafeTemporaryAllocation(byteCount: 32, alignment: 1) { code in
                names.code(bytes: UnsafeRawBufferPointer(message), into: code)
                return Self.base64URL(UnsafeRawBufferPointer(rebasing: code[..<16]))
            }
        }
    }

    /// Copies `text`'s UTF-8 into `buffer` from `offset`; returns the offset after it.
    private static func copy(_ text: String, into buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) -> Int {
        let (_, copied) = UnsafeMutableBufferPointer(rebasing: buffer[offset...]).initialize(from: text.utf8)
        return offset + copied
    }

    /// The base64url alphabet, made once (a name is made on every second-level read).
    private static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func base64URL(_ bytes: some Collection<UInt8>) -> String {
        let alphabet = Self.alphabet
        return String(unsafeUninitializedCapacity: (bytes.count * 4 + 2) / 3) { output in
            var count = 0
            var buffer: UInt32 = 0
            var bits = 0
            for byte in bytes {
                buffer = buffer << 8 | UInt32(byte)
                bits += 8
                while bits >= 6 {
                    bits -= 6
                    output[count] = alphabet[Int((buffer >> UInt32(bits)) & 0x3F)]
                    count += 1
                }
            }
            if bits > 0 {
                output[count] = alphabet[Int((buffer << UInt32(6 - bits)) & 0x3F)]
                count += 1
            }
            return count
        }
    }
}

extension SecondLevelSecret: CustomStringConvertible, CustomReflectable {
    /// Never the key.
    public var description: String { "SecondLevelSecret(redacted)" }

    /// No children: `dump()` and reflection-based loggers see nothing of the keys.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
