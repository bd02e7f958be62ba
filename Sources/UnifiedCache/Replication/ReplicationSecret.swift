import CacheCrypto
import Foundation

/// The fleet secret every replica shares: it names sessions on the wire by a keyed hash and seals every message.
///
/// Anyone who can read the Redis channel sees only opaque bytes: session ids, account identifiers, paths and record
/// keys are encrypted, and a message that was not sealed with the fleet secret (forged, corrupted, or from a fleet
/// with another secret) is rejected. Set it from `UCACHE_REPLICATION_SECRET`: at least 32 random bytes written
/// `base64:…` or `hex:…`; a comma-separated list, current key first, rotates it (see ``init(keys:)``).
///
/// Sealing (format v3, see `ReplicationSealer`): AES-256-GCM (OpenSSL) under a key derived with HKDF-SHA256 from the
/// current master key and the sender's id, the nonce being the sender's message counter; session hashes: HMAC-SHA256
/// under a key derived the same way for that purpose.
public struct ReplicationSecret: Sendable {
    /// The environment variable ``init(environment:)`` reads.
    public static let environmentVariable = "UCACHE_REPLICATION_SECRET"
    let ring: FleetKeyRing
    /// The session-hash key of each master key, in the ring's order.
    private let sessionKeys: [HMACKey]

    /// One master key of at least 32 random bytes.
    ///
    /// - Throws: `.invalidSettings` when the key is shorter than 32 bytes.
    public init(_ secret: [UInt8]) throws(UnifiedCacheError) {
        try self.init(keys: [secret])
    }

    /// Master keys for a rotation, current first: sealed with the first, opened with any.
    ///
    /// - Throws: `.invalidSettings` when the list is empty, a key is shorter than 32 bytes, or a key repeats.
    public init(keys: [[UInt8]]) throws(UnifiedCacheError) {
        try self.init(ring: FleetKeyRing(masters: keys, name: "replication"))
    }

    init(ring: FleetKeyRing) {
        self.ring = ring
        sessionKeys = ring.keys.map { HMACKey(key: $0.derivedKey("ucache replication session v2")) }
    }

    /// The secret from `UCACHE_REPLICATION_SECRET`; nil when the variable is unset or empty.
    ///
    /// - Throws: `.invalidSettings` when it is set but is not a list of `base64:`/`hex:` keys of 32 bytes or more.
    public init?(environment: [String: String]) throws(UnifiedCacheError) {
        guard let text = environment[Self.environmentVariable], !text.isEmpty else { return nil }
        try self.init(ring: FleetKeyRing(text: text, name: "replication", place: Self.environmentVariable))
    }

    /// The name of a session on the wire: hex HMAC-SHA256 of its id under the current key's session key. The same
    /// on every replica of the fleet, not reversible, and useless without the secret for guessing short ids.
    public func sessionHash(of sessionID: String) -> String {
        Self.hex(sessionKeys[0].code(for: Array(sessionID.utf8)))
    }

    /// The session's name under every key of the ring, current first: during a rotation a message names a session
    /// under the sender's current key, which may be any key of this ring.
    func sessionHashes(of sessionID: String) -> [String] {
        sessionKeys.map { Self.hex($0.code(for: Array(sessionID.utf8))) }
    }

    /// The position in the ring of the key named `id`, if the ring holds it.
    func keyIndex(id: some Collection<UInt8>) -> Int? {
        ring.keys.firstIndex { $0.id.elementsEqual(id) }
    }

    /// The id of the key at `index` (0 is the current key), sent in the clear beside what it sealed.
    func keyID(at index: Int) -> [UInt8] { ring.keys[index].id }

    /// The AES-256-GCM key one sender seals its messages with under the ring's key at `index`: HKDF of the master
    /// key salted with the sender id, so each sender has a key of its own and its counter can be the nonce.
    func messageKey(at index: Int, sender: [UInt8]) -> AES256GCMKey {
        AES256GCMKey(key: ring.keys[index].derivedKey("ucache replication messages v3", salt: sender))
    }

    /// Lowercase hexadecimal, two digits a byte, built in one buffer (a string per byte cost more than the HMAC).
    static func hex(_ bytes: [UInt8]) -> String {
        let digits: StaticString = "0123456789abcdef"
        return String(unsafeUninitializedCapacity: bytes.count * 2) { buffer in
            digits.withUTF8Buffer { digits in
                for (index, byte) in bytes.enumerated() {
                    buffer[2 * index] = digits[Int(byte >> 4)]
                    buffer[2 * index + 1] = digits[Int(byte & 0x0F)]
                }
            }
            return bytes.count * 2
        }
    }
}

extension ReplicationSecret: CustomStringConvertible, CustomReflectable {
    /// Never the keys.
    public var description: String { "ReplicationSecret(redacted)" }

    /// No children: `dump()` and reflection-based loggers see nothing of the keys.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
