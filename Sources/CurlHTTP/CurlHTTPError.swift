/// The one error type of the CurlHTTP module.
///
/// Callers switch on ``code`` (stable across releases). libcurl's own code and message are kept
/// for diagnosis. The description is safe to log: it never contains header values, bodies,
/// a URL's userinfo or its query.
public struct CurlHTTPError: Error, Sendable, CustomStringConvertible, Equatable {
    /// A stable classification of what went wrong.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidURL
            case unsupportedScheme
            case invalidHeader
            case requestTooLarge
            case connectFailed
            case timedOut
            case tls
            case tooLarge
            case tooManyRedirects
            case connectionClosed
            case notRetried
            case truncatedResponse
            case cancelled
            case shutdown
            case protocolError
            case other
        }

        private let base: Base
        private init(_ base: Base) { self.base = base }

        /// The URL could not be parsed, or has no host.
        public static let invalidURL = Code(.invalidURL)
        /// The URL's scheme is not `http` or `https`.
        public static let unsupportedScheme = Code(.unsupportedScheme)
        /// A header name or value contains CR, LF or NUL (header injection), or the name is empty or invalid.
        public static let invalidHeader = Code(.invalidHeader)
        /// The request body is larger than ``CurlHTTPClient/Configuration/maximumRequestBodySize``.
        public static let requestTooLarge = Code(.requestTooLarge)
        /// The host could not be resolved or the connection was refused.
        public static let connectFailed = Code(.connectFailed)
        /// The connect or total timeout passed.
        public static let timedOut = Code(.timedOut)
        /// The TLS handshake or peer verification failed.
        public static let tls = Code(.tls)
        /// The response body passed ``CurlHTTPClient/Configuration/maximumResponseSize``; the transfer was aborted.
        public static let tooLarge = Code(.tooLarge)
        /// More redirects than ``CurlHTTPClient/Configuration/RedirectPolicy`` allows.
        public static let tooManyRedirects = Code(.tooManyRedirects)
        /// The server closed or reset the connection before sending a response.
        public static let connectionClosed = Code(.connectionClosed)
        /// A reused keep-alive connection died after a non-idempotent request (POST, PATCH, or one marked with
        /// ``CurlHTTPClient/Request/isIdempotent`` `false`) was sent and before any answer. The request may have
        /// reached the server and been applied, so it was not sent again; whether it took effect is unknown.
        public static let notRetried = Code(.notRetried)
        /// The server closed the connection before the announced body was complete.
        public static let truncatedResponse = Code(.truncatedResponse)
        /// The calling task was cancelled; the transfer was removed.
        public static let cancelled = Code(.cancelled)
        /// The client was shut down before the request finished.
        public static let shutdown = Code(.shutdown)
        /// The server's answer was not valid HTTP.
        public static let protocolError = Code(.protocolError)
        /// Anything else libcurl reported; see ``CurlHTTPError/curlCode``.
        public static let other = Code(.other)

        public var description: String { base.rawValue }
    }

    /// What went wrong, stable across releases.
    public let code: Code
    /// A human-readable explanation, free of secrets.
    public let message: String
    /// libcurl's `CURLcode`, when the error came from libcurl.
    public let curlCode: Int?
    /// libcurl's error buffer text, when there was one (URL query and userinfo redacted).
    public let curlMessage: String?

    /// Creates an error; the module builds these, callers only read them.
    package init(_ code: Code, _ message: String, curlCode: Int? = nil, curlMessage: String? = nil) {
        self.code = code
        self.message = message
        self.curlCode = curlCode
        self.curlMessage = curlMessage
    }

    public var description: String {
        var text = "CurlHTTPError.\(code): \(message)"
        if let curlCode {
            text += " (libcurl \(curlCode)"
            if let curlMessage, !curlMessage.isEmpty { text += ": \(curlMessage)" }
            text += ")"
        }
        return text
    }
}
