/// The one error type of CacheCore.
///
/// The store's everyday outcomes (miss, stale, refused insert) are values, not errors; this is for what a caller
/// must fix, such as an invalid configuration. Match on `code`, which is stable; `message` is for humans.
public struct CacheCoreError: Error, CustomStringConvertible, Sendable {
    /// A stable identifier of the failure, comparable across releases.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case invalidConfiguration
            case invalidTimeout
            case invalidByteCost
            case invalidResilience
            case timedOut
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// A `CacheStore.Configuration` or `MemoryBudget` value is out of range.
        public static let invalidConfiguration = Code(.invalidConfiguration)
        /// A timeout is negative, NaN or infinite (or a default timeout is `useDefault`).
        public static let invalidTimeout = Code(.invalidTimeout)
        /// A byte cost is negative.
        public static let invalidByteCost = Code(.invalidByteCost)
        /// A ``CacheResilience`` option is out of range (a negative duration, an eager-refresh threshold outside
        /// (0, 1), a soft timeout not below the hard one).
        public static let invalidResilience = Code(.invalidResilience)
        /// A front door waited its hard timeout and had nothing to serve.
        public static let timedOut = Code(.timedOut)

        public var description: String {
            base.rawValue
        }
    }

    public var code: Code
    /// What went wrong and how to fix it; never contains cached values, tokens or session identifiers.
    public var message: String
    /// The error that caused this one, if any.
    public var underlying: (any Error & Sendable)?

    public init(code: Code, message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// Code and message only: the underlying error is not printed because its text is not under this module's
    /// control and may carry secrets.
    public var description: String {
        "CacheCoreError.\(code): \(message)"
    }
}
