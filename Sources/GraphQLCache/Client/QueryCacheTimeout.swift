import CacheCore
import GraphQLLanguage

/// How long a cached query answer stays fresh: the seed's per-query timeout model.
///
/// Write `30` for thirty seconds (integer and float literals are `.seconds`), as the seed's
/// `cacheTimeout: 30` reads.
public enum QueryCacheTimeout: Sendable, Hashable {
    /// Fresh until cleared or refetched.
    case never
    /// Fresh for this many seconds after the oldest field the answer reads was written.
    case seconds(Double)
    /// No opinion: the next rule in ``GraphQLCacheConfig``'s precedence decides.
    case useDefault

    /// The freshness lifetime with `.useDefault` replaced by `defaultSeconds`; `nil` means it never expires.
    public func timeInterval(default defaultSeconds: Double) -> Double? {
        switch self {
        case .never: nil
        case .seconds(let seconds): seconds
        case .useDefault: defaultSeconds
        }
    }

    /// The same timeout in CacheCore's terms, for code that talks to both halves of the package.
    public var cacheTimeout: Timeout {
        switch self {
        case .never: .never
        case .seconds(let seconds): .seconds(seconds)
        case .useDefault: .useDefault
        }
    }

    /// CacheCore's timeout in this type's terms.
    public init(_ timeout: Timeout) {
        switch timeout {
        case .never: self = .never
        case .seconds(let seconds): self = .seconds(seconds)
        case .useDefault: self = .useDefault
        }
    }

    /// Whether the value can be used: seconds must be finite and not negative.
    var isValid: Bool {
        if case .seconds(let seconds) = self {
            return seconds.isFinite && seconds >= 0
        }
        return true
    }
}

extension QueryCacheTimeout: ExpressibleByIntegerLiteral, ExpressibleByFloatLiteral {
    /// `.seconds(value)`.
    public init(integerLiteral value: Int) {
        self = .seconds(Double(value))
    }

    /// `.seconds(value)`.
    public init(floatLiteral value: Double) {
        self = .seconds(value)
    }
}
