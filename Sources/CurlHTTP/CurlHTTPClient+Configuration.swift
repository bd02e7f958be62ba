extension CurlHTTPClient {
    /// How the client connects, what it accepts, and its limits.
    ///
    /// Defaults follow the seeds (30 s total timeout) and a cautious server posture: TLS peers are
    /// verified, responses are bounded, only `http`/`https` can be fetched.
    public struct Configuration: Sendable {
        /// How long establishing a connection may take. Default: 10 s.
        public var connectTimeout: Duration
        /// How long a whole request may take, unless the request sets its own. Default: 30 s.
        public var totalTimeout: Duration
        /// The largest response body accepted; a transfer passing it is aborted at once. Default: 16 MiB.
        public var maximumResponseSize: Int
        /// The largest request body accepted before any I/O. Default: 16 MiB.
        public var maximumRequestBodySize: Int
        /// Whether and how far redirects are followed. Default: follow up to 5.
        public var redirectPolicy: RedirectPolicy
        /// Connections kept open to one host at most (0 = unlimited). Default: 64.
        public var maximumConnectionsPerHost: Int
        /// Connections kept open in total at most (0 = unlimited). Default: 0.
        public var maximumTotalConnections: Int
        /// Idle connections kept in the pool for reuse. Default: 256.
        public var connectionPoolSize: Int
        /// Whether HTTP/2 is negotiated over TLS and requests are multiplexed on it. Default: true.
        public var enableHTTP2: Bool
        /// TLS settings.
        public var tls: TLS
        /// The `User-Agent` sent when a request does not set one. Default: `UnifiedCache-CurlHTTP/1`.
        public var userAgent: String
        /// Whether compressed responses (gzip, br, zstd, whatever libcurl supports) are requested and decoded.
        /// Default: true.
        public var acceptCompressedResponses: Bool
        /// Changes each request just before it is sent (see ``CurlHTTPClient/RequestDecorator``). Default: nil.
        public var requestDecorator: RequestDecorator?

        /// Creates a configuration; every argument has the documented default.
        public init(
            connectTimeout: Duration = .seconds(10),
            totalTimeout: Duration = .seconds(30),
            maximumResponseSize: Int = 16 * 1024 * 1024,
            maximumRequestBodySize: Int = 16 * 1024 * 1024,
            redirectPolicy: RedirectPolicy = .follow(maximum: 5),
            maximumConnectionsPerHost: Int = 64,
            maximumTotalConnections: Int = 0,
            connectionPoolSize: Int = 256,
            enableHTTP2: Bool = true,
            tls: TLS = TLS(),
            userAgent: String = "UnifiedCache-CurlHTTP/1",
            acceptCompressedResponses: Bool = true
        ) {
            self.connectTimeout = connectTimeout
            self.totalTimeout = totalTimeout
            self.maximumResponseSize = maximumResponseSize
            self.maximumRequestBodySize = maximumRequestBodySize
            self.redirectPolicy = redirectPolicy
            self.maximumConnectionsPerHost = maximumConnectionsPerHost
            self.maximumTotalConnections = maximumTotalConnections
            self.connectionPoolSize = connectionPoolSize
            self.enableHTTP2 = enableHTTP2
            self.tls = tls
            self.userAgent = userAgent
            self.acceptCompressedResponses = acceptCompressedResponses
        }

        /// What to do with a 3xx response.
        public enum RedirectPolicy: Sendable, Equatable {
            /// Return the 3xx response as it is.
            case never
            /// Follow up to `maximum` redirects (http and https only), then fail with `tooManyRedirects`.
            case follow(maximum: Int)
        }

        /// TLS settings; peer verification is on unless turned off explicitly.
        public struct TLS: Sendable, Equatable {
            /// Whether the peer's certificate chain and host name are verified. Default: true.
            public var verifyPeer: Bool
            /// A CA bundle file to verify against instead of the system's. Default: nil (system bundle).
            public var caBundlePath: String?

            /// Creates TLS settings.
            public init(verifyPeer: Bool = true, caBundlePath: String? = nil) {
                self.verifyPeer = verifyPeer
                self.caBundlePath = caBundlePath
            }
        }
    }
}

extension Duration {
    /// Whole milliseconds, rounded up so that a tiny positive timeout never becomes "no timeout" (0).
    var roundedUpMilliseconds: Int {
        let (seconds, attoseconds) = components
        let millis = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        let remainder = attoseconds % 1_000_000_000_000_000
        return Int(millis) + (remainder > 0 ? 1 : 0)
    }

    /// A duration from libcurl's microsecond counters.
    static func curlMicroseconds(_ value: Int64) -> Duration { .microseconds(value) }
}
