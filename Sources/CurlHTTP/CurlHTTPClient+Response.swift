import Foundation

extension CurlHTTPClient {
    /// A complete HTTP response: status, headers and the whole body.
    public struct Response: Sendable {
        /// The status code of the final response (after redirects, when followed).
        public var status: Int
        /// The final response's header fields; headers of intermediate redirects are dropped.
        public var headers: Headers
        /// The body as received (decoded if the server used a content encoding).
        public var body: Data
        /// The URL of the final response, after redirects.
        public var effectiveURL: String
        /// The HTTP version the response arrived with, such as `"1.1"` or `"2"`.
        public var httpVersion: String
        /// Where the time went, as measured by libcurl.
        public var timings: Timings

        /// Creates a response (useful when adapting other transports in tests).
        public init(
            status: Int,
            headers: Headers = [:],
            body: Data = Data(),
            effectiveURL: String = "",
            httpVersion: String = "1.1",
            timings: Timings = Timings()
        ) {
            self.status = status
            self.headers = headers
            self.body = body
            self.effectiveURL = effectiveURL
            self.httpVersion = httpVersion
            self.timings = timings
        }

        /// Whether the status is 2xx.
        public var isSuccess: Bool { (200..<300).contains(status) }
    }

    /// libcurl's timing breakdown for one transfer, each measured from the start of the transfer.
    public struct Timings: Sendable, Equatable {
        /// Until the name was resolved.
        public var nameLookup: Duration
        /// Until the TCP connection was established (zero for a reused connection).
        public var connect: Duration
        /// Until the TLS handshake finished (zero for plain HTTP).
        public var tlsHandshake: Duration
        /// Until the first response byte arrived.
        public var firstByte: Duration
        /// Until the transfer completed.
        public var total: Duration
        /// New connections opened for this transfer: zero when a pooled connection was reused.
        public var newConnections: Int

        /// Creates timings; all zero by default.
        public init(
            nameLookup: Duration = .zero,
            connect: Duration = .zero,
            tlsHandshake: Duration = .zero,
            firstByte: Duration = .zero,
            total: Duration = .zero,
            newConnections: Int = 0
        ) {
            self.nameLookup = nameLookup
            self.connect = connect
            self.tlsHandshake = tlsHandshake
            self.firstByte = firstByte
            self.total = total
            self.newConnections = newConnections
        }
    }
}
