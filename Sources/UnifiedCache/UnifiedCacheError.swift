/// The one error type of UnifiedCache.
///
/// Settings files and domain maps are written by people, so an error must say where the mistake is (`place`, and
/// `line`/`column` for a file) and what was expected, and the caller must be able to tell kinds of failure apart
/// without parsing text: match on `code`, which is stable across releases; `message` is for humans.
public struct UnifiedCacheError: Error, CustomStringConvertible, Sendable {
    /// A stable identifier of the failure, comparable across releases.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidSettings
            case settingsFileUnreadable
            case invalidDomain
            case unknownDomain
            case duplicateDomain
            case invalidMetrics
            case partialClearFailure
            case invalidValueRequest
            case valueNotEncodable
            case sessionEnded
            case tokenRejected
            case tokenVerificationUnavailable
            case timedOut
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// A settings file or environment variable is malformed or out of range; `place` names the JSON path or
        /// the variable.
        public static let invalidSettings = Code(.invalidSettings)
        /// The settings file could not be read (missing, unreadable, too large); `underlying` has the cause.
        public static let settingsFileUnreadable = Code(.settingsFileUnreadable)
        /// A domain definition breaks a rule: a coordinate that is not `Type.field`, a name that is not a GraphQL
        /// name, an empty key prefix, a domain with nothing in it.
        public static let invalidDomain = Code(.invalidDomain)
        /// A domain name was looked up or configured that no map knows.
        public static let unknownDomain = Code(.unknownDomain)
        /// `register` was asked to add a domain whose name is taken (use `merge` or `replace`).
        public static let duplicateDomain = Code(.duplicateDomain)
        /// A metrics label or part name cannot be exported.
        public static let invalidMetrics = Code(.invalidMetrics)
        /// A clear finished every part it could but at least one part failed; the report says which.
        public static let partialClearFailure = Code(.partialClearFailure)
        /// A cached value was asked for with input the value door cannot use: an empty key or tag, or a duration
        /// that is negative; `place` names the argument.
        public static let invalidValueRequest = Code(.invalidValueRequest)
        /// A factory's value could not be encoded by the hub's ``ValueCoder``; `underlying` has the coder's error.
        /// The value is not cached (it could not be charged, nor shared through the second level).
        public static let valueNotEncodable = Code(.valueNotEncodable)
        /// The session ended (logout, expiry, another principal) or was closed: its value door refuses work, so
        /// nothing is read or stored in its scope any more.
        public static let sessionEnded = Code(.sessionEnded)
        /// The upstream said a bearer token is not valid (401 or 403), or the token is malformed or missing.
        public static let tokenRejected = Code(.tokenRejected)
        /// The upstream could not say whether a token is valid (unreachable, an error status, an unreadable answer,
        /// too many verifications at once); nothing was remembered, the next request asks again.
        public static let tokenVerificationUnavailable = Code(.tokenVerificationUnavailable)
        /// A value's factory did not answer within the hard timeout (`CacheResilience.hardTimeout`) and nothing
        /// could be served in its place; the factory goes on in the background and stores its value when it returns.
        public static let timedOut = Code(.timedOut)

        public var description: String {
            base.rawValue
        }
    }

    public var code: Code
    /// What went wrong and what was expected; never contains tokens, cookies, session identifiers or cached values.
    public var message: String
    /// Where the mistake is: a JSON path such as `domains.balances.policy`, an environment variable such as
    /// `UCACHE_DEFAULT_TIMEOUT`, or a domain field such as `balances.schemaCoordinates`. `nil` when nowhere in
    /// particular.
    public var place: String?
    /// The 1-based line in the settings file, when the mistake has a position there.
    public var line: Int?
    /// The 1-based column (in characters) in the settings file, when the mistake has a position there.
    public var column: Int?
    /// The error that caused this one, if any.
    public var underlying: (any Error & Sendable)?

    public init(
        code: Code,
        message: String,
        place: String? = nil,
        line: Int? = nil,
        column: Int? = nil,
        underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.place = place
        self.line = line
        self.column = column
        self.underlying = underlying
    }

    /// Code, place, position and message only: the underlying error is not printed because its text is not under
    /// this module's control and may carry secrets.
    public var description: String {
        var text = "UnifiedCacheError.\(code)"
        if let place {
            text += " at \(place)"
        }
        if let line, let column {
            text += " (line \(line), column \(column))"
        } else if let line {
            text += " (line \(line))"
        }
        return text + ": " + message
    }
}
