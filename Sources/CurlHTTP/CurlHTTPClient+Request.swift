import Foundation

extension CurlHTTPClient {
    /// An HTTP method. A struct rather than an enum so upstream-specific verbs stay expressible.
    public struct Method: Hashable, Sendable, RawRepresentable, ExpressibleByStringLiteral, CustomStringConvertible {
        public let rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public init(stringLiteral value: String) { self.rawValue = value }

        public static let get = Method(rawValue: "GET")
        public static let head = Method(rawValue: "HEAD")
        public static let post = Method(rawValue: "POST")
        public static let put = Method(rawValue: "PUT")
        public static let patch = Method(rawValue: "PATCH")
        public static let delete = Method(rawValue: "DELETE")
        public static let options = Method(rawValue: "OPTIONS")

        /// Whether a successful request with this method changes state upstream (and so invalidates caches).
        public var isMutating: Bool { self == .post || self == .put || self == .patch || self == .delete }

        /// Whether sending the request twice has the same effect as sending it once (RFC 9110 section 9.2.2):
        /// GET, HEAD, PUT, DELETE, OPTIONS and TRACE. POST, PATCH and unknown methods are not.
        public var isIdempotent: Bool {
            self == .get || self == .head || self == .put || self == .delete || self == .options
                || self == Method(rawValue: "TRACE")
        }

        public var description: String { rawValue }
    }

    /// One HTTP request: what to send, and optionally how long it may take.
    public struct Request: Sendable {
        /// The method; `GET` by default.
        public var method: Method
        /// An absolute `http` or `https` URL.
        public var url: String
        /// Header fields sent as given; libcurl adds `Host`, `Content-Length` and `Accept-Encoding`.
        public var headers: Headers
        /// The body, copied into libcurl before the transfer starts.
        public var body: Data?
        /// A total timeout for this request, overriding ``Configuration/totalTimeout``.
        public var timeout: Duration?
        /// The cookie jar this request reads and writes; none by default.
        public var cookieJar: CookieJar?
        /// Whether the request may be sent again after a reused keep-alive connection died before any answer.
        ///
        /// `nil` (the default) decides by the method and headers: idempotent methods
        /// (``Method/isIdempotent``) and requests carrying an `Idempotency-Key` header are sent once more on
        /// another connection; POST, PATCH and other methods are not, and fail with
        /// ``CurlHTTPError/Code/notRetried`` instead, because the server may have received and applied them (a
        /// payment made twice). `false` marks a request non-idempotent whatever its method; `true` allows the
        /// single retry for a POST that is safe to repeat, such as a GraphQL query.
        public var isIdempotent: Bool?

        /// Creates a request.
        public init(
            method: Method = .get,
            url: String,
            headers: Headers = [:],
            body: Data? = nil,
            timeout: Duration? = nil,
            cookieJar: CookieJar? = nil,
            isIdempotent: Bool? = nil
        ) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
            self.timeout = timeout
            self.cookieJar = cookieJar
            self.isIdempotent = isIdempotent
        }

        /// Whether the transport may resend the request once on a new connection (see ``isIdempotent``).
        var allowsAutomaticRetry: Bool {
            isIdempotent ?? (method.isIdempotent || headers.contains("Idempotency-Key"))
        }
    }
}
