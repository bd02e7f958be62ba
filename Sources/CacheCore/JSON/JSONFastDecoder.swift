import Foundation

/// Decodes JSON exactly as a given `JSONDecoder` would, at a fraction of its cost when that decoder has Foundation's
/// default options: a decoder of our own walks a flat tape of the document (``JSONTapeDecoder``) and, whenever it is
/// not sure to agree with Foundation (an error anywhere, even one the caller's type catches; a `Decimal`; a number
/// written `1.0` for an integer; a subclass or any non-default option), the document is decoded by the given
/// `JSONDecoder` instead, so the value or the error is always Foundation's.
///
/// Why: on a second-level hit the answer's bytes are decoded into the caller's type on every read, and Foundation's
/// decoder builds a dictionary for every object; it was two fifths of the hit's instructions. A type whose
/// `init(from:)` has side effects sees them twice when the fast path gives up.
@usableFromInline
package enum JSONFastDecoder {
    /// `type` from `data`, as `decoder.decode(type, from: data)` gives it.
    @usableFromInline
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data, as decoder: JSONDecoder) throws -> T {
        if hasDefaultOptions(decoder), let value = JSONTapeDecoder.decode(type, from: data) {
            return value
        }
        return try decoder.decode(type, from: data)
    }

    /// `type` from `data`, as a `JSONDecoder` with Foundation's default options gives it: for callers whose decoder
    /// is never configured, so no option is read at each decode.
    package static func decode<T: Decodable>(_ type: T.Type, from data: Data) throws -> T {
        if let value = JSONTapeDecoder.decode(type, from: data) { return value }
        return try defaultDecoder.decode(type, from: data)
    }

    /// Never configured (`JSONDecoder` is `Sendable`; its options are only read here).
    private static let defaultDecoder = JSONDecoder()

    /// Whether `decoder` is Foundation's own class with every option at its default, read at each decode (the
    /// options are mutable on a shared instance).
    package static func hasDefaultOptions(_ decoder: JSONDecoder) -> Bool {
        guard type(of: decoder) == JSONDecoder.self, !decoder.allowsJSON5, !decoder.assumesTopLevelDictionary,
            decoder.userInfo.isEmpty
        else { return false }
        guard case .deferredToDate = decoder.dateDecodingStrategy, case .base64 = decoder.dataDecodingStrategy,
            case .throw = decoder.nonConformingFloatDecodingStrategy, case .useDefaultKeys = decoder.keyDecodingStrategy
        else { return false }
        return true
    }
}
