import CurlHTTP
import GraphQLLanguage

/// An upstream's answer read as a GraphQL response: `data`, `errors`, `extensions`.
struct GraphQLHTTPResponse {
    let status: Int
    /// `data` when it is an object; `nil` when it is `null` or absent.
    let data: GraphQLJSONObject?
    let errors: [GraphQLResponseError]
    let extensions: GraphQLJSONObject?
    /// What the upstream said about caching the answer (headers and `extensions.cacheControl`).
    let upstream: UpstreamCachePolicy

    /// Reads the body.
    /// - Throws: `httpStatus` for a non-2xx status (with the body's `errors` when it is a GraphQL response),
    ///   `invalidResponse` for a 2xx body that is not one.
    init(_ response: CurlHTTPClient.Response) throws(GraphQLCacheError) {
        status = response.status
        let json: GraphQLJSON
        do {
            json = try GraphQLJSON(parsing: response.body)
        } catch {
            guard response.isSuccess else {
                throw Self.failure(status: status, errors: [], data: nil, extensions: nil, code: .httpStatus)
            }
            throw GraphQLCacheError(
                code: .invalidResponse,
                message: "The upstream's answer is not JSON (\(error.message))",
                byteOffset: error.byteOffset,
                underlying: error
            )
        }
        let object = json.objectValue
        let errorList = object?["errors"]
        errors = errorList?.arrayValue?.compactMap(GraphQLResponseError.init(json:)) ?? []
        extensions = object?["extensions"]?.objectValue
        data = object?["data"]?.objectValue
        upstream = UpstreamCachePolicy(headers: response.headers, extensions: extensions)
        guard response.isSuccess else {
            throw Self.failure(status: status, errors: errors, data: data, extensions: extensions, code: .httpStatus)
        }
        guard let object else {
            throw Self.invalid("The upstream's answer is \(json.kindDescription), not a GraphQL response object.")
        }
        if let member = object["data"], member.objectValue == nil, !member.isNull {
            throw Self.invalid("The upstream's answer has 'data' that is \(member.kindDescription), not an object.")
        }
        if let errorList, errorList.arrayValue == nil || errors.count != errorList.arrayValue?.count {
            throw Self.invalid("The upstream's answer has 'errors' that is not a list of errors with messages.")
        }
        if data == nil, errors.isEmpty {
            throw Self.invalid("The upstream's answer has neither 'data' nor 'errors'.")
        }
    }

    /// The failure for an answer with `errors` (or without usable data).
    func failure(code: GraphQLCacheError.Code) -> GraphQLCacheError {
        Self.failure(status: status, errors: errors, data: data, extensions: extensions, code: code)
    }

    private static func failure(
        status: Int,
        errors: [GraphQLResponseError],
        data: GraphQLJSONObject?,
        extensions: GraphQLJSONObject?,
        code: GraphQLCacheError.Code
    ) -> GraphQLCacheError {
        let codes = errors.compactMap(\.code)
        var message =
            code == .httpStatus
            ? "The GraphQL upstream answered HTTP \(status)"
            : "The GraphQL upstream answered with \(errors.count) error\(errors.count == 1 ? "" : "s")"
        if !codes.isEmpty {
            message += " (\(codes.joined(separator: ", ")))"
        }
        if data != nil {
            message += " and partial data"
        }
        return GraphQLCacheError(
            code: code,
            message: message + ".",
            underlying: GraphQLErrorResponse(status: status, errors: errors, data: data, extensions: extensions)
        )
    }

    private static func invalid(_ message: String) -> GraphQLCacheError {
        GraphQLCacheError(code: .invalidResponse, message: message)
    }
}
