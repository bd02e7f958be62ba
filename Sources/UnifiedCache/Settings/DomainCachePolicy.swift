/// How one feature's data is cached: the four choices of the seeds' Settings.bundle (`Never`, `Always`, `Custom`,
/// `Default`).
///
/// Mind the names, which are the seed's: `.never` means *never cache* (always fetch from the network), which is the
/// opposite of CacheCore's `Timeout.never` (*never expire*); `.always` is the one that maps to `Timeout.never`.
public enum DomainCachePolicy: Hashable, Sendable {
    /// Never cache: every request of the domain goes to the network and nothing is stored.
    case never
    /// Cache indefinitely: entries stay fresh until a clear removes them (`Timeout.never`).
    case always
    /// Cache for this many seconds (`Timeout.seconds`), whatever the request asks for.
    case custom(seconds: Double)
    /// The application decides: the request's own timeout, or the global default when it has none.
    case `default`

    /// Parses the text form used by the settings file and `UCACHE_DOMAIN_<NAME>`: `never`, `always`, `default`
    /// (any letter case), or a number of seconds for `custom`.
    ///
    /// - Throws: `.invalidSettings` with `place` when the text is none of these or the seconds are negative, not
    ///   finite, or not a number.
    public init(parsing text: String, place: String? = nil) throws(UnifiedCacheError) {
        let trimmed = text.trimmingSpaces
        switch trimmed.lowercased() {
        case "never": self = .never
        case "always": self = .always
        case "default": self = .default
        default:
            guard let seconds = Double(trimmed), !trimmed.isEmpty else {
                throw UnifiedCacheError(
                    code: .invalidSettings,
                    message: "expected never, always, default or a number of seconds, got \(NameRules.quoted(text))",
                    place: place
                )
            }
            self = try Self.custom(seconds, place: place)
        }
    }

    /// A custom policy after checking the seconds.
    ///
    /// - Throws: `.invalidSettings` when `seconds` is negative, NaN or infinite.
    static func custom(_ seconds: Double, place: String?) throws(UnifiedCacheError) -> DomainCachePolicy {
        guard seconds.isFinite, seconds >= 0 else {
            throw UnifiedCacheError(
                code: .invalidSettings,
                message: "expected a finite number of seconds ≥ 0 for a custom policy, got \(seconds)",
                place: place
            )
        }
        return .custom(seconds: seconds)
    }
}

extension DomainCachePolicy: CustomStringConvertible {
    /// The text form `init(parsing:)` reads: `never`, `always`, `default` or the seconds (`30`, `2.5`).
    public var description: String {
        switch self {
        case .never: return "never"
        case .always: return "always"
        case .default: return "default"
        case .custom(let seconds): return SecondsText.format(seconds)
        }
    }
}

extension DomainCachePolicy: Codable {
    /// Decodes the text form, or a bare number of seconds.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        do {
            if let seconds = try? container.decode(Double.self) {
                self = try Self.custom(seconds, place: nil)
            } else {
                try self.init(parsing: container.decode(String.self))
            }
        } catch let error as UnifiedCacheError {
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: error.message, underlyingError: error)
            )
        }
    }

    /// `never`, `always`, `default` as strings; a custom policy as its number of seconds.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        if case .custom(let seconds) = self {
            try container.encode(seconds)
        } else {
            try container.encode(description)
        }
    }
}

/// Numbers of seconds as people write them: `30`, not `30.0`; `2.5` stays `2.5`.
enum SecondsText {
    static func format(_ seconds: Double) -> String {
        if seconds == seconds.rounded(), abs(seconds) < 1e15 {
            return String(Int64(seconds))
        }
        return String(seconds)
    }
}

extension String {
    /// The text without spaces, tabs and newlines at either end (no Foundation needed).
    var trimmingSpaces: String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }),
            let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })
        else {
            return ""
        }
        return String(scalars[first...last])
    }
}
