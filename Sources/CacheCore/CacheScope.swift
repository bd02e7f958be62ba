/// The owner of a cache entry: one logged-in session, or data that is the same for everyone.
///
/// A BFF serves many users from one process, so every entry belongs to exactly one scope and a read never
/// crosses scopes: a lookup in `.session("a")` cannot see what `.session("b")` or `.shared` stored. Private
/// data is stored in the session's scope (the default higher up); public data opts into `.shared` explicitly.
public enum CacheScope: Hashable, Sendable {
    /// Private to one session. The identifier is whatever the server uses to tell sessions apart.
    case session(String)
    /// Public data, served to every session that asks for it.
    case shared
}

extension CacheScope: CustomStringConvertible {
    /// Session identifiers are often bearer secrets (a session cookie), so logs get a stable fingerprint instead:
    /// the same session always prints the same text, which is enough to follow it through a log.
    public var description: String {
        switch self {
        case .shared:
            return "shared"
        case .session(let identifier):
            return "session(#\(Self.fingerprint(of: identifier)))"
        }
    }

    /// The fingerprint printed instead of an identifier: FNV-1a (32 bits) over the UTF-8 bytes as eight hex digits.
    ///
    /// Stable across processes (unlike `hashValue`) so a log line and an export about the same session can be
    /// matched, cheap, and not reversible in practice for random session identifiers. It names; it does not protect
    /// short guessable values (account numbers) against someone who tries them all.
    public static func fingerprint(of identifier: String) -> String {
        var hash: UInt32 = 0x811C_9DC5
        for byte in identifier.utf8 {
            hash = (hash ^ UInt32(byte)) &* 0x0100_0193
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 8 - hex.count) + hex
    }
}
