extension RedisReplicationConfiguration {
    /// TLS for a `rediss://` link: TLS 1.2 or later, the server's certificate verified against trusted CAs and
    /// its name checked, both by default; optionally a client certificate (mutual TLS).
    ///
    /// Files are read when a connection is made (so a rotated certificate is picked up on reconnection); a file that
    /// cannot be read fails that connection with `.tlsConfigurationInvalid`. Keys must be unencrypted PEM: an
    /// encrypted key is refused rather than prompting for a passphrase.
    public struct TLS: Sendable, Equatable {
        /// The environment variable naming a PEM file of trusted CA certificates.
        public static let caFileEnvironmentVariable = "UCACHE_REDIS_TLS_CA_FILE"
        /// The environment variable naming a directory of trusted CA certificates (hashed, as `openssl rehash`).
        public static let caDirectoryEnvironmentVariable = "UCACHE_REDIS_TLS_CA_DIRECTORY"
        /// The environment variable naming the client certificate (PEM chain) for mutual TLS.
        public static let certificateFileEnvironmentVariable = "UCACHE_REDIS_TLS_CERT_FILE"
        /// The environment variable naming the client certificate's private key (unencrypted PEM).
        public static let keyFileEnvironmentVariable = "UCACHE_REDIS_TLS_KEY_FILE"
        /// The environment variable naming the server name sent (SNI) and verified, when it is not the URL's host.
        public static let serverNameEnvironmentVariable = "UCACHE_REDIS_TLS_SERVER_NAME"

        /// A PEM file of trusted CA certificates. With ``caDirectory`` also nil, the system's trust store is used.
        /// Default: nil.
        public var caFile: String?
        /// A directory of trusted CA certificates in OpenSSL's hashed layout. Default: nil.
        public var caDirectory: String?
        /// The client certificate chain (PEM) presented when the server asks for one. Needs ``keyFile``. Default: nil.
        public var certificateFile: String?
        /// The private key of ``certificateFile`` (unencrypted PEM). Never read into a message. Default: nil.
        public var keyFile: String?
        /// The name sent as SNI and checked against the server's certificate; nil uses the URL's host. A DNS name
        /// is matched against the certificate's DNS names, an IP address against its IP addresses. Default: nil.
        public var serverName: String?
        /// How long the TLS handshake may take after the TCP connection is made. Default: 1 s.
        public var handshakeTimeout: Duration
        /// Whether the server's certificate chain is verified against the trusted CAs. Default: true.
        ///
        /// - Warning: false accepts any certificate, so anyone on the path can read the fleet's traffic and its
        ///   AUTH password. Only for a throwaway test setup; there is deliberately no environment variable for it.
        public var verifiesCertificate: Bool
        /// Whether the certificate must name the server (``serverName`` or the host). Default: true.
        ///
        /// - Warning: false accepts a certificate the CA issued to any other name: another tenant's Redis, or
        ///   any server holding some certificate from the same CA, can impersonate this one.
        public var verifiesHostName: Bool

        /// TLS with every field given or defaulted (see each field).
        public init(
            caFile: String? = nil,
            caDirectory: String? = nil,
            certificateFile: String? = nil,
            keyFile: String? = nil,
            serverName: String? = nil,
            handshakeTimeout: Duration = .seconds(1),
            verifiesCertificate: Bool = true,
            verifiesHostName: Bool = true
        ) {
            self.caFile = caFile
            self.caDirectory = caDirectory
            self.certificateFile = certificateFile
            self.keyFile = keyFile
            self.serverName = serverName
            self.handshakeTimeout = handshakeTimeout
            self.verifiesCertificate = verifiesCertificate
            self.verifiesHostName = verifiesHostName
        }

        /// The paths and server name from the environment variables above, applied over `self`.
        ///
        /// - Returns: whether any of them was set.
        mutating func apply(environment: [String: String]) -> Bool {
            func value(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
            var found = false
            let fields: [(String, WritableKeyPath<TLS, String?>)] = [
                (Self.caFileEnvironmentVariable, \.caFile), (Self.caDirectoryEnvironmentVariable, \.caDirectory),
                (Self.certificateFileEnvironmentVariable, \.certificateFile),
                (Self.keyFileEnvironmentVariable, \.keyFile), (Self.serverNameEnvironmentVariable, \.serverName),
            ]
            for (name, field) in fields {
                guard let given = value(name) else { continue }
                self[keyPath: field] = given
                found = true
            }
            return found
        }

        /// Throws unless a certificate and its key are given together.
        func check() throws(RedisReplicationError) {
            if (certificateFile == nil) != (keyFile == nil) {
                throw RedisReplicationError(
                    .tlsConfigurationInvalid,
                    "A TLS client certificate needs both a certificate file and a key file "
                        + "(\(Self.certificateFileEnvironmentVariable), \(Self.keyFileEnvironmentVariable)).")
            }
        }
    }
}
