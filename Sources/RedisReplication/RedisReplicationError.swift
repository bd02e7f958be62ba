/// The Redis module's one error: a stable code, a message that never contains the password, and the cause.
public struct RedisReplicationError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, stable across releases: compare with `==` or `switch` over the static members; the
    /// description is the code's stable name (`connectFailed`, …), for logs and metrics labels.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidURL
            case connectFailed
            case missingCredentials
            case authenticationFailed
            case protocolError
            case connectionLost
            case timedOut
            case tlsConfigurationInvalid
            case tlsCertificateUntrusted
            case tlsHostNameMismatch
            case tlsCertificateExpired
            case tlsHandshakeTimedOut
            case tlsFailed
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// `UCACHE_REDIS_URL` (or the URL given) is not `redis[s]://[user[:password]@]host[:port]`.
        public static let invalidURL = Code(.invalidURL)
        /// The TCP connection could not be made (refused, unreachable, timed out).
        public static let connectFailed = Code(.connectFailed)
        /// The configuration would connect without AUTH (no password and no explicit opt-out), or names a user
        /// without a password.
        public static let missingCredentials = Code(.missingCredentials)
        /// The server rejected AUTH.
        public static let authenticationFailed = Code(.authenticationFailed)
        /// A command got no answer in time, or an unexpected one.
        public static let protocolError = Code(.protocolError)
        /// The connection broke while in use.
        public static let connectionLost = Code(.connectionLost)
        /// The server did not answer a health check within the configured timeout (down or paused).
        public static let timedOut = Code(.timedOut)
        /// The TLS settings cannot be used: a CA, certificate or key file that is missing or unreadable, a key that
        /// does not match its certificate, or a certificate without a key.
        public static let tlsConfigurationInvalid = Code(.tlsConfigurationInvalid)
        /// The server's certificate chain does not lead to a trusted CA (unknown or self-signed issuer, bad signature).
        public static let tlsCertificateUntrusted = Code(.tlsCertificateUntrusted)
        /// The server's certificate does not name the host (or the configured server name).
        public static let tlsHostNameMismatch = Code(.tlsHostNameMismatch)
        /// The server's certificate has expired (or is not valid yet).
        public static let tlsCertificateExpired = Code(.tlsCertificateExpired)
        /// The TLS handshake did not finish within its timeout (the server accepted TCP and never answered TLS).
        public static let tlsHandshakeTimedOut = Code(.tlsHandshakeTimedOut)
        /// The TLS handshake or a TLS record failed otherwise: the server refused the client (e.g. mutual TLS
        /// without a client certificate), no common protocol version, or a plaintext server.
        public static let tlsFailed = Code(.tlsFailed)

        public var description: String { base.rawValue }
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
        "RedisReplicationError(\(code)): \(message)" + (underlying.map { " (\($0))" } ?? "")
    }
}
