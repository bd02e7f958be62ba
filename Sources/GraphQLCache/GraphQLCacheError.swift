/// The one error type of the GraphQLCache module.
///
/// Callers switch on ``code`` (stable across releases) rather than parsing ``message``. The message follows
/// graphql-js wording so that people who know GraphQL recognise it. Neither the message nor ``description`` ever
/// contains a whole document or the value of a string literal (at most the escape sequence at fault), because
/// documents can carry credentials inline; names in messages are shortened to 80 characters.
import GraphQLLanguage

public struct GraphQLCacheError: Error, CustomStringConvertible, Sendable {
    /// A stable, machine-readable identification of what went wrong.
    ///
    /// New codes are added as static members; compare with `==` or `switch` over the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case responseMismatch
            case missingTypename
            case invalidVariables
            case invalidCacheKey
            case invalidPattern
            case decodingFailed
            case invalidConfiguration
            case httpStatus
            case transportFailed
            case graphQLErrors
            case invalidResponse
            case cacheMiss
            case cancelled
            case invalidOperation
            case closed
            case timedOut
            case failSafeThrottled
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The code's stable name, e.g. `responseMismatch`, for logs and metrics labels.
        public var description: String {
            base.rawValue
        }

        // The parser's codes (`syntaxError`, `unknownFragment`, `tooDeep`, `invalidJSON`, ...) belong to
        // GraphQLLanguageError.Code since the language moved to its own module; a client reports a document it
        // cannot use as `invalidOperation` with the GraphQLLanguageError as its underlying error.

        // MARK: The normalized store

        /// A response's `data` does not fit the operation's selection: a selected field is missing, or an object
        /// field holds a string, number or boolean. ``GraphQLCacheError/path`` names the place.
        public static let responseMismatch = Code(.responseMismatch)
        /// An object has no `__typename` (or a non-string one) where the store needs it: to decide a fragment's
        /// type condition, or to ask the registered key providers for its cache key.
        public static let missingTypename = Code(.missingTypename)
        /// A variable needed by `@include`/`@skip` is missing or not a boolean, or the variables are not an object.
        public static let invalidVariables = Code(.invalidVariables)
        /// A key provider returned an empty key or the key of a root record (`QUERY_ROOT`, ...).
        public static let invalidCacheKey = Code(.invalidCacheKey)
        /// A record-key glob pattern is malformed (an unterminated `[` or a trailing backslash).
        public static let invalidPattern = Code(.invalidPattern)
        /// Cached data could not be decoded into the caller's `Decodable` type; the `DecodingError` is the
        /// ``GraphQLCacheError/underlying`` error.
        public static let decodingFailed = Code(.decodingFailed)
        /// A store configuration value is out of range.
        public static let invalidConfiguration = Code(.invalidConfiguration)

        // MARK: The GraphQL client

        /// The upstream answered with a status other than 2xx. ``GraphQLCacheError/httpStatus`` has it, and
        /// ``GraphQLCacheError/graphQLErrors`` the `errors` of its body when it had any (GraphQL-over-HTTP servers
        /// answer request errors with 400 and an `errors` list).
        public static let httpStatus = Code(.httpStatus)
        /// No answer arrived: connect failure, timeout, TLS, a dropped or truncated connection, an oversized body.
        /// The `CurlHTTPError` is ``GraphQLCacheError/transportError``.
        public static let transportFailed = Code(.transportFailed)
        /// The upstream answered 2xx with `errors`. ``GraphQLCacheError/graphQLErrors`` lists them and
        /// ``GraphQLCacheError/partialData`` holds the `data` that came with them; nothing was stored.
        public static let graphQLErrors = Code(.graphQLErrors)
        /// The answer is not a GraphQL response: not JSON (the JSON error is the underlying error), not an object,
        /// `data` neither an object nor `null`, or neither `data` nor `errors`.
        public static let invalidResponse = Code(.invalidResponse)
        /// `returnCacheDataDontFetch` found no cached answer.
        public static let cacheMiss = Code(.cacheMiss)
        /// The calling task was cancelled before the answer arrived (the request goes on for other waiters).
        public static let cancelled = Code(.cancelled)
        /// The operation cannot be sent: the document does not parse or validate (the parser's error is the
        /// underlying error and its locations are kept), the operation name is unknown, a query was given to
        /// `perform` or a mutation to `fetch`, or the variables do not fit the operation's declarations.
        public static let invalidOperation = Code(.invalidOperation)
        /// The client was closed (its session ended): nothing was sent, read or stored.
        public static let closed = Code(.closed)

        // MARK: Resilience

        /// The call waited its hard timeout (`CacheResilience/hardTimeout`) and had nothing to serve: no cached
        /// answer within its fail-safe window. The upstream call goes on in the background and stores its answer
        /// when it lands.
        public static let timedOut = Code(.timedOut)

        /// Internal: a call that found its query throttled after a failure and did not ask the upstream. Never handed
        /// to a caller: one with a cached answer serves it, one without asks the upstream itself.
        static let failSafeThrottled = Code(.failSafeThrottled)
    }

    /// The error's contents live in one shared, immutable box, so throwing and propagating the error moves a
    /// single reference: the parser's recursion keeps small stack frames, even in debug builds.
    private final class Storage: Sendable {
        let code: Code
        let message: String
        let locations: [GraphQLSourceLocation]
        let byteOffset: Int?
        let path: String?
        let underlying: (any Error)?

        init(
            code: Code,
            message: String,
            locations: [GraphQLSourceLocation],
            byteOffset: Int?,
            path: String?,
            underlying: (any Error)?
        ) {
            self.code = code
            self.message = message
            self.locations = locations
            self.byteOffset = byteOffset
            self.path = path
            self.underlying = underlying
        }
    }

    private let storage: Storage

    /// What went wrong, for programs.
    public var code: Code {
        storage.code
    }

    /// What went wrong, for people; never contains string literal values or whole documents.
    public var message: String {
        storage.message
    }

    /// Where in the document the problem is, most relevant first; empty when the problem has no place.
    public var locations: [GraphQLSourceLocation] {
        storage.locations
    }

    /// Where in JSON input the problem is (0-based UTF-8 byte offset), for an `invalidResponse` whose body is not JSON.
    public var byteOffset: Int? {
        storage.byteOffset
    }

    /// Where in a response or cached result the problem is, as response keys and list indices joined by dots
    /// (`accounts.0.balance`); for ``Code/responseMismatch``, ``Code/missingTypename`` and
    /// ``Code/decodingFailed``.
    public var path: String? {
        storage.path
    }

    /// The error that caused this one, when there is one.
    public var underlying: (any Error)? {
        storage.underlying
    }

    init(
        code: Code,
        message: String,
        locations: [GraphQLSourceLocation] = [],
        byteOffset: Int? = nil,
        path: String? = nil,
        underlying: (any Error)? = nil
    ) {
        storage = Storage(
            code: code,
            message: message,
            locations: locations,
            byteOffset: byteOffset,
            path: path,
            underlying: underlying
        )
    }

    /// `line:column: message` like a compiler diagnostic for documents; `byte N: message` for JSON;
    /// `at path: message` for responses. Values (strings, numbers) of documents and responses never appear.
    public var description: String {
        if let first = locations.first {
            return "\(first): \(message)"
        }
        if let byteOffset {
            return "byte \(byteOffset): \(message)"
        }
        if let path, !path.isEmpty {
            return "at \(path): \(message)"
        }
        return message
    }
}
