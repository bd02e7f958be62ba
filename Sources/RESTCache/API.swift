/// Why a REST call failed, as the seed's `perform(with:)` reports it: `Result<Response, API<ErrorBody>>`.
public enum API<ErrorBody: Sendable>: Error, Sendable {
    /// The transport failed (connect, timeout, TLS, too large, …).
    case network(CurlHTTPError)
    /// The upstream answered with an error status; its body decoded as `ErrorBody` when possible.
    case http(status: Int, body: ErrorBody?)
    /// The answer could not be decoded as the request's `Response`.
    case decoding(RESTCacheError)
    /// `cacheOnly` found no fresh entry.
    case cacheMiss
    /// The calling task was cancelled.
    case cancelled
    /// The request itself is invalid (path, query, body encoding), or the service is closed (code `closed`: its
    /// session ended); nothing was sent.
    case invalidRequest(RESTCacheError)

    /// The HTTP status, when the upstream answered with one.
    public var status: Int? {
        if case .http(let status, _) = self { return status }
        return nil
    }
}

extension API: CustomStringConvertible {
    /// Never prints bodies: they may carry personal data.
    public var description: String {
        switch self {
        case .network(let error): return "API.network(\(error))"
        case .http(let status, let body):
            return "API.http(status: \(status), body: \(body == nil ? "none" : "decoded"))"
        case .decoding(let error): return "API.decoding(\(error))"
        case .cacheMiss: return "API.cacheMiss"
        case .cancelled: return "API.cancelled"
        case .invalidRequest(let error): return "API.invalidRequest(\(error))"
        }
    }
}

/// The one error struct of RESTCache: a stable code, a message, and the underlying cause.
public struct RESTCacheError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, stable across releases: compare with `==` or `switch` over the static members; the
    /// description is the code's stable name (`closed`, …), for logs and metrics labels.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidRequest
            case encodingFailed
            case decodingFailed
            case invalidConfiguration
            case closed
            case httpStatus
            case transportFailed
            case cacheMiss
            case cancelled
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The path, query or base URL does not form a valid URL.
        public static let invalidRequest = Code(.invalidRequest)
        /// The request body could not be encoded as JSON.
        public static let encodingFailed = Code(.encodingFailed)
        /// The response body is not valid JSON or not of the expected shape.
        public static let decodingFailed = Code(.decodingFailed)
        /// A configuration value is out of range.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// The service was closed (its session ended): nothing was sent, read or stored.
        public static let closed = Code(.closed)
        /// The upstream answered with an error status. ``RESTCacheError/httpStatus`` has it, and
        /// ``RESTCacheError/errorBody(as:)`` the body decoded as the request's `ErrorBody`.
        public static let httpStatus = Code(.httpStatus)
        /// No answer arrived: connect failure, timeout, TLS, a dropped or truncated connection, an oversized body.
        /// The `CurlHTTPError` is ``RESTCacheError/transportError``.
        public static let transportFailed = Code(.transportFailed)
        /// `cacheOnly` found no fresh entry.
        public static let cacheMiss = Code(.cacheMiss)
        /// The calling task was cancelled before the answer arrived.
        public static let cancelled = Code(.cancelled)

        public var description: String { base.rawValue }
    }

    public let code: Code
    public let message: String
    /// What caused it (an `EncodingError`, `DecodingError`, …).
    public let underlying: (any Error & Sendable)?

    public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// What a closed service answers every request with.
    @usableFromInline
    static var serviceClosed: RESTCacheError {
        RESTCacheError(.closed, "The session this service belongs to has ended: nothing was sent, read or stored.")
    }

    /// The message and the kind of cause, never the body that failed to decode.
    public var description: String {
        var text = "RESTCacheError.\(code): \(message)"
        if let underlying { text += " (\(Self.summary(of: underlying)))" }
        return text
    }

    private static func summary(of error: any Error) -> String {
        if let failure = error as? any SeedFailure { return failure.safeSummary }
        guard let decoding = error as? DecodingError else { return String(describing: type(of: error)) }
        switch decoding {
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .keyNotFound(_, let context),
            .dataCorrupted(let context):
            let path = context.codingPath.map(\.stringValue).joined(separator: ".")
            return "DecodingError at '\(path)': \(context.debugDescription)"
        @unknown default:
            return "DecodingError"
        }
    }
}
