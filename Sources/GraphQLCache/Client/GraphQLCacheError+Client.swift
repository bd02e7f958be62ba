import CurlHTTP
import GraphQLLanguage

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
