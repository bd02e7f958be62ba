import CacheCore

/// Who a request is, as the BFF verified it: a token's subject, a user id.
///
/// A session id comes from a cookie or header that the *client* holds, so it proves nothing by itself. Binding
/// every session to the principal the BFF verified means that the same session id presented by someone else
/// never reaches the first user's cached data: the hub ends the old session and starts a fresh one.
public struct VerifiedPrincipal: Hashable, Sendable, CustomStringConvertible {
    /// The stable identity, e.g. the `sub` claim of a verified token.
    public let subject: String

    /// - Parameter subject: the verified identity; never a value the client chose without proof.
    public init(_ subject: String) {
        self.subject = subject
    }

    /// A fingerprint only: a subject is often an email or an account number.
    public var description: String {
        "principal(#\(CacheScope.fingerprint(of: subject)))"
    }
}

/// How the hub finds a session: by the client's session id, or by the principal alone.
enum SessionKey: Hashable, Sendable {
    /// A session the client names (cookie, header); bound to a principal in its slot.
    case id(String)
    /// One session per principal (the simple form: no separate session id).
    case principal(String)

    /// The cache scope of a session with this key and principal.
    ///
    /// Length-prefixed, so no choice of session id can make the scope of another (id, principal) pair, and a
    /// principal-only scope never equals an id-based one. A different principal on the same id gets a different
    /// scope, so the old principal's entries are unreachable even before their clear has run.
    func scope(for principal: VerifiedPrincipal) -> CacheScope {
        switch self {
        case .id(let id):
            return .session("\(id.utf8.count):\(id)|\(principal.subject)")
        case .principal:
            return .session("p|\(principal.subject)")
        }
    }

    /// The string alone, hashed once per lookup (no case tag: an id and a subject spelled alike share a bucket and
    /// still differ as keys, which costs a comparison, never a wrong session). `Hasher` is keyed by the process's
    /// random seed, so a client choosing session ids cannot predict which of them collide.
    func hash(into hasher: inout Hasher) {
        switch self {
        case .id(let value), .principal(let value): hasher.combine(value)
        }
    }

    /// The session id handed to session cache parts: the client's id, or the subject for principal-only sessions.
    var sessionID: String {
        switch self {
        case .id(let id): return id
        case .principal(let subject): return subject
        }
    }
}
