import CurlHTTP
import GraphQLLanguage

extension GraphQLCacheError.Code {
    // MARK: The GraphQL client

    /// The upstream answered with a status other than 2xx. ``GraphQLCacheError/httpStatus`` has it, and
    /// ``GraphQLCacheError/graphQLErrors`` the `errors` of its body when it had any (GraphQL-over-HTTP servers
    /// answer request errors with 400 and an `errors` list).
    public static let httpStatus = Self("httpStatus")
    /// No answer arrived: connect failure, timeout, TLS, a dropped or truncated connection, an oversized body.
    /// The `CurlHTTPError` is ``GraphQLCacheError/transportError``.
    public static let transportFailed = Self("transportFailed")
    /// The upstream answered 2xx with `errors`. ``GraphQLCacheError/graphQLErrors`` lists them and
    /// ``GraphQLCacheError/partialData`` holds the `data` that came with them; nothing was stored.
    public static let graphQLErrors = Self("graphQLErrors")
    /// The answer is not a GraphQL response: not JSON (the JSON error is the underlying error), not an object,
    /// `data` neither an object nor `null`, or neither `data` nor `errors`.
    public static let invalidResponse = Self("invalidResponse")
    /// `returnCacheDataDontFetch` found no cached answer.
    public static let cacheMiss = Self("cacheMiss")
    /// The calling task was cancelled before the answer arrived (the request goes on for other waiters).
    public static let cancelled = Self("cancelled")
    /// The operation cannot be sent: the document does not parse or validate (the parser's error is the
    /// underlying error and its locations are kept), the operation name is unknown, a query was given to
    /// `perform` or a mutation to `fetch`, or the variables do not fit the operation's declarations.
    public static let invalidOperation = Self("invalidOperation")
    /// The client was closed (its session ended): nothing was sent, read or stored.
    public static let closed = Self("closed")
}

/// What an upstream answered when the answer is a failure: its status, its `errors` and any partial `data`.
///
/// The ``GraphQLCacheError/underlying`` error of `httpStatus` and `graphQLErrors` failures. Its description
/// names the status and error codes only: data and messages may be personal.
public struct GraphQLErrorResponse: Error, Sendable, Hashable, CustomStringConvertible {
    /// The HTTP status.
    public var status: Int
    /// The response's `errors`.
    public var errors: [GraphQLResponseError]
    /// The response's `data`, when it carried an object (partial data).
    public var data: GraphQLJSONObject?
    /// The response's `extensions`.
    public var extensions: GraphQLJSONObject?

    /// Creates a failed answer.
    public init(
        status: Int,
        errors: [GraphQLResponseError],
        data: GraphQLJSONObject? = nil,
        extensions: GraphQLJSONObject? = nil
    ) {
        self.status = status
        self.errors = errors
        self.data = data
        self.extensions = extensions
    }

    public var description: String {
        let codes = errors.map { $0.code ?? "none" }.joined(separator: ", ")
        return "GraphQLErrorResponse(status: \(status), errors: [\(codes)], data: \(data == nil ? "none" : "partial"))"
    }
}

extension GraphQLCacheError {
    /// The HTTP status of a failed answer (`httpStatus`, `graphQLErrors`).
    public var httpStatus: Int? {
        (underlying as? GraphQLErrorResponse)?.status
    }

    /// The `errors` of a failed answer; empty for other failures.
    public var graphQLErrors: [GraphQLResponseError] {
        (underlying as? GraphQLErrorResponse)?.errors ?? []
    }

    /// The `data` that came with `errors` (partial data); not stored unless the client is configured to.
    public var partialData: GraphQLJSONObject? {
        (underlying as? GraphQLErrorResponse)?.data
    }

    /// The transport's error, for `transportFailed`.
    public var transportError: CurlHTTPError? {
        underlying as? CurlHTTPError
    }

    static func cancelledError() -> GraphQLCacheError {
        GraphQLCacheError(code: .cancelled, message: "The calling task was cancelled.")
    }

    static func closedError() -> GraphQLCacheError {
        GraphQLCacheError(
            code: .closed, message: "The session this client belongs to has ended: nothing was sent, read or stored.")
    }

    static func invalidOperation(_ message: String, underlying: GraphQLLanguageError? = nil) -> GraphQLCacheError {
        GraphQLCacheError(
            code: .invalidOperation,
            message: message,
            locations: underlying?.locations ?? [],
            underlying: underlying
        )
    }
}
