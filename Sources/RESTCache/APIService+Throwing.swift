import CurlHTTP

extension APIService {
    /// Performs a request under its cache policy and returns its answer, throwing the module's error struct: the
    /// form a server handler (`async throws`) calls.
    ///
    /// It is ``perform(with:)`` without the `Result`: the same cache, de-duplication and policies, nothing more on
    /// the hit path. A failure is thrown as a ``RESTCacheError`` whose ``RESTCacheError/code`` says what happened
    /// (`httpStatus`, `transportFailed`, `decodingFailed`, `cacheMiss`, `cancelled`, `closed`, `invalidRequest`,
    /// `encodingFailed`); the seeds' ``API`` value stays reachable through ``RESTCacheError/api(_:)``, and an error
    /// answer's decoded body through ``RESTCacheError/errorBody(as:)``.
    ///
    /// ```swift
    /// let accounts = try await session.rest.response(for: AccountsRequest())
    /// ```
    @inlinable
    public func response<T: RequestType>(for request: T) async throws(RESTCacheError) -> T.Response {
        switch await performWithSource(with: request) {
        case .success(let answer): return answer.data
        case .failure(let failure): throw failure.restCacheError
        }
    }

    /// ``response(for:)`` with where the answer came from (cache, network, stale cache), as
    /// ``performWithSource(with:)`` says it.
    @inlinable
    public func responseWithSource<T: RequestType>(
        for request: T
    ) async throws(RESTCacheError) -> DataWithSource<T.Response> {
        switch await performWithSource(with: request) {
        case .success(let answer): return answer
        case .failure(let failure): throw failure.restCacheError
        }
    }
}

/// What `RESTCacheError` needs of an `API<ErrorBody>` without knowing its `ErrorBody`.
protocol SeedFailure: Error, Sendable {
    var status: Int? { get }
    var transportError: CurlHTTPError? { get }
    /// A description that never includes a body.
    var safeSummary: String { get }
}

extension API: SeedFailure {
    var transportError: CurlHTTPError? {
        if case .network(let error) = self { return error }
        return nil
    }

    var safeSummary: String { description }
}

extension API {
    /// The same failure as the module's error struct, with this value as its ``RESTCacheError/underlying`` error:
    /// what ``APIService/response(for:)`` throws.
    public var restCacheError: RESTCacheError {
        switch self {
        case .network:
            return RESTCacheError(.transportFailed, "No answer arrived from the upstream.", underlying: self)
        case .http(let status, _):
            return RESTCacheError(.httpStatus, "The upstream answered with status \(status).", underlying: self)
        case .decoding(let error), .invalidRequest(let error):
            return RESTCacheError(error.code, error.message, underlying: self)
        case .cacheMiss:
            return RESTCacheError(
                .cacheMiss, "The cache holds no fresh answer and the policy is cacheOnly.", underlying: self)
        case .cancelled:
            return RESTCacheError(
                .cancelled, "The calling task was cancelled before the answer arrived.", underlying: self)
        }
    }
}

extension RESTCacheError {
    /// The HTTP status of an error answer (code `httpStatus`); nil for other failures.
    public var httpStatus: Int? {
        (underlying as? any SeedFailure)?.status
    }

    /// The transport's error when no answer arrived (code `transportFailed`); nil for other failures.
    public var transportError: CurlHTTPError? {
        (underlying as? any SeedFailure)?.transportError
    }

    /// The seeds' form of this failure, for code that switches over ``API``: nil when the error did not come from
    /// a request whose `ErrorBody` is `ErrorBody`.
    public func api<ErrorBody: Sendable>(_ errorBody: ErrorBody.Type = ErrorBody.self) -> API<ErrorBody>? {
        underlying as? API<ErrorBody>
    }

    /// The body of an error answer (code `httpStatus`) decoded as the request's `ErrorBody`; nil when the failure
    /// is of another kind, the body did not decode, or `ErrorBody` is not the request's.
    public func errorBody<ErrorBody: Sendable>(as errorBody: ErrorBody.Type) -> ErrorBody? {
        guard case .http(_, let body) = api(errorBody) else { return nil }
        return body
    }
}
