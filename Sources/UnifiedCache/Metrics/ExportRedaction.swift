import CacheCore
import Foundation

/// What an export of cache contents may show.
///
/// Cached values are people's financial data and identifiers are often credentials (a session id is a bearer
/// secret, an account token opens an account), so an export shows neither unless the caller asks: values become
/// `<redacted N bytes>` (the size still helps to find what fills the memory) and identifiers become fingerprints
/// (`#1a2b3c4d`, the same text CacheCore's `CacheScope` and `ClearTarget` print in logs, so an export and a log line
/// about the same session can be matched without either revealing it). Keys are identifiers' favourite hiding
/// place, so REST and GraphQL keys are redacted part by part (``restKey(_:)``, ``recordKey(_:)``).
public struct ExportRedaction: Hashable, Sendable {
    /// Whether values are shown as they are. Default `false`.
    public var includesValues: Bool
    /// Whether session ids, account ids and tokens are shown as they are. Default `false`.
    public var includesIdentifiers: Bool

    public init(includesValues: Bool = false, includesIdentifiers: Bool = false) {
        self.includesValues = includesValues
        self.includesIdentifiers = includesIdentifiers
    }

    /// Values and identifiers hidden: the default for every export.
    public static let redacted = ExportRedaction()
    /// Values and identifiers shown, for a developer on their own machine who asked for it explicitly.
    public static let revealingEverything = ExportRedaction(includesValues: true, includesIdentifiers: true)

    /// A cached value as an export shows it: its UTF-8 text (or `base64:` and the bytes when it is not text) when
    /// values are included, `<redacted N bytes>` otherwise.
    public func value(_ bytes: some Collection<UInt8>) -> String {
        guard includesValues else {
            return Self.redactedText(byteCount: bytes.count)
        }
        if let text = String(validating: bytes, as: UTF8.self) {
            return text
        }
        return "base64:" + Data(bytes).base64EncodedString()
    }

    /// A cached value that is already text.
    public func value(_ text: String) -> String {
        includesValues ? text : Self.redactedText(byteCount: text.utf8.count)
    }

    /// An identifier (session id, account id or token) as an export shows it: itself when identifiers are
    /// included, `#` and its fingerprint otherwise.
    public func identifier(_ identifier: String) -> String {
        includesIdentifiers ? identifier : "#" + Self.fingerprint(of: identifier)
    }

    /// A scope as an export shows it: `shared`, or `session(#fingerprint)` (exactly `CacheScope.description`),
    /// or `session(<id>)` when identifiers are included.
    public func scope(_ scope: CacheScope) -> String {
        switch scope {
        case .shared: return "shared"
        case .session(let identifier): return "session(" + self.identifier(identifier) + ")"
        }
    }

    /// The text that stands for a hidden value.
    public static func redactedText(byteCount: Int) -> String {
        "<redacted \(byteCount) bytes>"
    }

    /// The fingerprint CacheCore prints for identifiers (`CacheScope.fingerprint(of:)`).
    public static func fingerprint(of identifier: String) -> String {
        CacheScope.fingerprint(of: identifier)
    }
}
