import Foundation

/// The fleet secret every replica shares: it names sessions on the wire by a keyed hash and seals every message.
///
/// Anyone who can read the Redis channel sees only opaque bytes: session ids, account identifiers, paths and record
/// keys are encrypted, and a message that was not sealed with the fleet secret (forged, corrupted, or from a fleet
/// with another secret) is rejected. Set it from `UCACHE_REPLICATION_SECRET` (at least 16 bytes; 32 random bytes
/// recommended) and rotate it fleet-wide.
///
/// Sealing: HMAC-SHA256 in counter mode as the key stream (a PRF-based stream cipher) under a random 16-byte nonce,
/// then HMAC-SHA256 over version, nonce and ciphertext (encrypt-then-MAC), with separate keys derived from the
/// secret for encryption, authentication and session hashing.
public struct ReplicationSecret: Sendable {
    /// The environment variable ``init(environment:)`` reads.
    public static let environmentVariable = "UCACHE_REPLICATION_SECRET"
    static let version: UInt8 = 1
    static let nonceLength = 16
    static let tagLength = 32

    /// HMAC states keyed with the three derived keys.
    private let encryption: HMACSHA256
    private let authentication: HMACSHA256
    private let session: HMACSHA256

    /// Derives the three keys from the shared secret.
    ///
    /// - Throws: `.invalidSettings` when the secret is shorter than 16 bytes.
    public init(_ secret: [UInt8]) throws(UnifiedCacheError) {
        let master = try HMACSHA256(sharedSecret: secret, name: "replication")
        encryption = master.derivedKey("ucache replication encryption v1")
        authentication = master.derivedKey("ucache replication authentication v1")
        session = master.derivedKey("ucache replication session v1")
    }

    /// The secret from `UCACHE_REPLICATION_SECRET`; nil when the variable is unset or empty.
    ///
    /// - Throws: `.invalidSettings` when it is set but shorter than 16 bytes.
    public init?(environment: [String: String]) throws(UnifiedCacheError) {
        guard let text = environment[Self.environmentVariable], !text.isEmpty else { return nil }
        try self.init(Array(text.utf8))
    }

    /// The name of a session on the wire: hex HMAC-SHA256 of its id under the session key. The same on every replica
    /// of the fleet, not reversible, and useless without the secret for guessing short ids.
    public func sessionHash(of sessionID: String) -> String {
        let code = session.authenticationCode(for: Array(sessionID.utf8))
        return code.map { byte in String(byte, radix: 16).leftPadded(to: 2) }.joined()
    }

    /// Encrypts and authenticates `plaintext`.
    func seal(_ plaintext: [UInt8]) -> [UInt8] {
        var generator = SystemRandomNumberGenerator()
        let nonce = (0..<Self.nonceLength).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        var sealed: [UInt8] = [Self.version]
        sealed.reserveCapacity(1 + Self.nonceLength + plaintext.count + Self.tagLength)
        sealed.append(contentsOf: nonce)
        sealed.append(contentsOf: applyKeyStream(to: plaintext, nonce: nonce))
        sealed.append(contentsOf: authentication.authenticationCode(for: sealed))
        return sealed
    }

    /// The plaintext of a sealed payload, or nil when it was not sealed with this secret (or was altered).
    func open(_ sealed: [UInt8]) -> [UInt8]? {
        guard sealed.count >= 1 + Self.nonceLength + Self.tagLength, sealed[0] == Self.version else { return nil }
        let body = sealed[..<(sealed.count - Self.tagLength)]
        let expected = authentication.authenticationCode(for: body)
        let tag = sealed[(sealed.count - Self.tagLength)...]
        // Compare in constant time: the whole tag is always read.
        var difference: UInt8 = 0
        for (left, right) in zip(expected, tag) { difference |= left ^ right }
        guard difference == 0 else { return nil }
        let nonce = Array(sealed[1...Self.nonceLength])
        return applyKeyStream(to: Array(body.dropFirst(1 + Self.nonceLength)), nonce: nonce)
    }

    /// XORs `bytes` with HMAC(encryptionKey, nonce ‖ counter) blocks; the same call encrypts and decrypts.
    private func applyKeyStream(to bytes: [UInt8], nonce: [UInt8]) -> [UInt8] {
        var output = bytes
        var counter: UInt32 = 0
        var offset = 0
        while offset < output.count {
            let counterBytes = [24, 16, 8, 0].map { UInt8(truncatingIfNeeded: counter >> $0) }
            let block = encryption.authenticationCode(for: nonce + counterBytes)
            for index in 0..<min(block.count, output.count - offset) { output[offset + index] ^= block[index] }
            offset += block.count
            counter &+= 1
        }
        return output
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}

extension ReplicationSecret: CustomStringConvertible {
    /// Never the keys.
    public var description: String { "ReplicationSecret(redacted)" }
}
