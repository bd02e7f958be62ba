/// The fleet secret the second level derives its names from: every namespace, entry and tag name sent to the store
/// is a keyed hash (HMAC-SHA256) under a key derived from it, so the store never sees a session id, principal,
/// cache key, account id or record key, and names cannot be guessed from short ids without the secret.
///
/// The same on every replica of the fleet. It may be the replication secret's bytes: the second level derives a
/// key of its own from them ("ucache second level names v1"), so no name equals a replication name.
public struct SecondLevelSecret: Sendable {
    /// The environment variable ``init(environment:)`` reads first.
    public static let environmentVariable = "UCACHE_L2_SECRET"

    /// HMAC state keyed with the derived naming key.
    private let names: HMACSHA256

    /// Derives the naming key from the shared secret.
    ///
    /// - Throws: `.invalidSettings` when the secret is shorter than 16 bytes.
    public init(_ secret: [UInt8]) throws(UnifiedCacheError) {
        let master = try HMACSHA256(sharedSecret: secret, name: "second-level")
        names = master.derivedKey("ucache second level names v1")
    }

    /// The secret from `UCACHE_L2_SECRET`, else from `UCACHE_REPLICATION_SECRET`; nil when neither is set.
    ///
    /// - Throws: `.invalidSettings` when the one found is shorter than 16 bytes.
    public init?(environment: [String: String]) throws(UnifiedCacheError) {
        let text = [Self.environmentVariable, ReplicationSecret.environmentVariable].lazy
            .compactMap { environment[$0] }.first { !$0.isEmpty }
        guard let text else { return nil }
        try self.init(Array(text.utf8))
    }

    /// The name of `text` in `space` (`session`, `entry`, `tag`, …): base64url (no padding) of the first 16 bytes
    /// of HMAC-SHA256 over `space`, a zero byte and `text`. 128 bits: collisions are out of reach, names stay short.
    func name(_ space: String, _ text: String) -> String {
        var message = Array(space.utf8)
        message.append(0)
        message.append(contentsOf: text.utf8)
        return Self.base64URL(names.authenticationCode(for: message).prefix(16))
    }

    static func base64URL(_ bytes: some Collection<UInt8>) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count * 4 + 2) / 3)
        var buffer: UInt32 = 0
        var bits = 0
        for byte in bytes {
            buffer = buffer << 8 | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                output.append(alphabet[Int((buffer >> UInt32(bits)) & 0x3F)])
            }
        }
        if bits > 0 { output.append(alphabet[Int((buffer << UInt32(6 - bits)) & 0x3F)]) }
        return String(decoding: output, as: UTF8.self)
    }
}

extension SecondLevelSecret: CustomStringConvertible {
    /// Never the key.
    public var description: String { "SecondLevelSecret(redacted)" }
}
