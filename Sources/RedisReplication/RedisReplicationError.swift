/// The Redis module's one error: a stable code, a message that never contains the password, and the cause.
public struct RedisReplicationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, stable across releases.
    public enum Code: String, Hashable, Sendable {
        /// `UCACHE_REDIS_URL` (or the URL given) is not `redis[s]://[user[:password]@]host[:port]`.
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
        /// The TLS settings cannot be used: a CA, certificate or key file that is missing or unreadable, a key that
        /// does not match its certificate, or a certificate without a key.
        case tlsConfigurationInvalid
        /// The server's certificate chain does not lead to a trusted CA (unknown or self-signed issuer, bad signature).
        case tlsCertificateUntrusted
        /// The server's certificate does not name the host (or the configured server name).
        case tlsHostNameMismatch
        /// The server's certificate has expired (or is not valid yet).
        case tlsCertificateExpired
        /// The TLS handshake did not finish within its timeout (the server accepted TCP and never answered TLS).
        case tlsHandshakeTimedOut
        /// The TLS handshake or a TLS record failed otherwise: the server refused the client (e.g. mutual TLS
        /// without a client certificate), no common protocol version, or a plaintext server.
        case tlsFailed
    }

    /// What went wrong.
    public let code: Code
    /// What happened, for a log; never contains the password or a payload.
    public let message: String
    /// hiredis's, the system's or OpenSSL's own error text, when there is one (it never holds credentials).
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
