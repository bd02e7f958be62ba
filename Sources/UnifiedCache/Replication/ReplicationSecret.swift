import CacheCrypto
import Foundation

/// The fleet secret every replica shares: it names sessions on the wire by a keyed hash and seals every message.
///
/// Anyone who can read the Redis channel sees only opaque bytes: session ids, account identifiers, paths and record
/// keys are encrypted, and a message that was not sealed with the fleet secret (forged, corrupted, or from a fleet
/// with another secret) is rejected. Set it from `UCACHE_REPLICATION_SECRET`: at least 32 random bytes written
/// `base64:…` or `hex:…`; a comma-separated list, current key first, rotates it (see ``init(keys:)``).
///
/// Sealing: AES-256-GCM (OpenSSL) under a key derived with HKDF-SHA256 from the current master key; session hashes:
/// HMAC-SHA256 under a key derived the same way for that purpose.
public struct ReplicationSecret: Sendable {
    /// The environment variable ``init(environment:)`` reads.
    public static let environmentVariable = "UCACHE_REPLICATION_SECRET"
    /// The wire format's version byte (2: AES-256-GCM under HKDF-derived keys).
    static let version: UInt8 = 2

    let ring: FleetKeyRing
    /// The session-hash key of each master key, in the ring's order.
    private let sessionKeys: [HMACKey]
    /// The sealing key of each master key, in the ring's order.
    private let sealingKeys: [AES256GCMKey]

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
        sealingKeys = ring.keys.map { AES256GCMKey(key: $0.derivedKey("ucache replication sealing v2")) }
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
        let code = sessionKeys[0].code(for: Array(sessionID.utf8))
        return code.map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
    }

    /// Encrypts and authenticates `plaintext`: version, key id, a random 12-byte nonce, ciphertext and tag.
    func seal(_ plaintext: [UInt8]) -> [UInt8] {
        let nonce = SecureRandom.bytes(AES256GCMKey.nonceLength)
        var sealed: [UInt8] = [Self.version]
        sealed.reserveCapacity(1 + FleetKeyRing.idLength + nonce.count + plaintext.count + AES256GCMKey.tagLength)
        sealed.append(contentsOf: ring.current.id)
        sealed.append(contentsOf: nonce)
        sealingKeys[0].seal(plaintext, nonce: nonce, authenticating: sealed, appendingTo: &sealed)
        return sealed
    }

    /// The plaintext of a sealed payload, or nil when it was not sealed with a key of this ring (or was altered).
    func open(_ sealed: [UInt8]) -> [UInt8]? {
        let headerLength = 1 + FleetKeyRing.idLength + AES256GCMKey.nonceLength
        guard sealed.count >= headerLength + AES256GCMKey.tagLength, sealed[0] == Self.version else { return nil }
        let id = sealed[1..<(1 + FleetKeyRing.idLength)]
        guard let index = ring.keys.firstIndex(where: { $0.id.elementsEqual(id) }) else { return nil }
        return sealingKeys[index].open(
            sealed[headerLength...], nonce: sealed[(1 + FleetKeyRing.idLength)..<headerLength],
            authenticating: sealed[..<headerLength])
    }
}

extension ReplicationSecret: CustomStringConvertible, CustomReflectable {
    /// Never the keys.
    public var description: String { "ReplicationSecret(redacted)" }

    /// No children: `dump()` and reflection-based loggers see nothing of the keys.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}
