import CacheCore

extension GraphQLCacheError.Code {
    /// The call waited its hard timeout (`CacheResilience/hardTimeout`) and had nothing to serve: no cached answer
    /// within its fail-safe window. The upstream call goes on in the background and stores its answer when it lands.
    public static let timedOut = Self("timedOut")
}

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
}

extension GraphQLCacheError.Code {
    /// Internal: a call that found its query throttled after a failure and did not ask the upstream. Never handed to
    /// a caller: one with a cached answer serves it, one without asks the upstream itself.
    static let failSafeThrottled = Self("failSafeThrottled")
}

extension GraphQLCacheError {
    static func failSafeThrottledError() -> GraphQLCacheError {
        GraphQLCacheError(code: .failSafeThrottled, message: "The upstream failed lately and is not asked again yet.")
    }
}
