/// The Redis module's one error: a stable code, a message that never contains the password, and the cause.
public struct RedisReplicationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, stable across releases.
    public enum Code: String, Hashable, Sendable {
        /// `UCACHE_REDIS_URL` (or the URL given) is not `redis://[user[:password]@]host[:port]`.
        case invalidURL
        /// The TCP connection could not be made (refused, unreachable, timed out).
        case connectFailed
        /// The configuration would connect without AUTH (no password and no explicit opt-out), or names a user
        /// without a password.
        case missingCredentials
        /// The server rejected AUTH.
        case authenticationFailed
        /// A command got no answer in time, or an unexpected one.
        case protocolError
        /// The connection broke while in use.
        case connectionLost
        /// The server did not answer a health check within the configured timeout (down or paused).
        case timedOut
    }

    /// What went wrong.
    public let code: Code
    /// What happened, for a log; never contains the password or a payload.
    public let message: String
    /// hiredis's own error text, when there is one (it never holds credentials).
    public let underlying: String?

    /// An error with its code, message and hiredis's text.
    public init(_ code: Code, _ message: String, underlying: String? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// Code, message and hiredis's text.
    public var description: String {
        "RedisReplicationError(\(code.rawValue)): \(message)" + (underlying.map { " (\($0))" } ?? "")
    }
}
