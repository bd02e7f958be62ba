import CacheCore

extension GraphQLCacheError {
    static func timedOutError(after timeout: Duration) -> GraphQLCacheError {
        GraphQLCacheError(
            code: .timedOut,
            message: "The GraphQL upstream did not answer within the hard timeout (\(timeout)) and nothing was cached.")
    }

    static func invalidResilience(_ error: CacheCoreError) -> GraphQLCacheError {
        GraphQLCacheError(code: .invalidConfiguration, message: "resilience: \(error.message)", underlying: error)
    }

    /// Whether a cached answer may stand in for the upstream after this failure: the upstream did not answer (a
    /// transport failure, a timeout), answered with a server error (5xx) or with something that is not a GraphQL
    /// response. Not for GraphQL errors (the upstream answered), a cancelled caller or a closed session.
    var allowsFailSafe: Bool {
        switch code {
        case .transportFailed, .timedOut, .invalidResponse: true
        case .httpStatus: (httpStatus ?? 0) >= 500
        default: false
        }
    }

    static func failSafeThrottledError() -> GraphQLCacheError {
        GraphQLCacheError(code: .failSafeThrottled, message: "The upstream failed lately and is not asked again yet.")
    }
}
