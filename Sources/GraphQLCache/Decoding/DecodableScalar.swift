import Foundation
import GraphQLLanguage

/// A standard library type the decoder reads straight from a JSON leaf, as `JSONDecoder` does: numbers must
/// fit the type exactly, strings and booleans must be what they claim.
protocol DecodableScalar: Decodable {
    static func scalar(from json: GraphQLJSON) -> Self?
}

extension Bool: DecodableScalar {
    static func scalar(from json: GraphQLJSON) -> Bool? {
        json.boolValue
    }
}

extension String: DecodableScalar {
    static func scalar(from json: GraphQLJSON) -> String? {
        json.stringValue
    }
}

extension Double: DecodableScalar {
    static func scalar(from json: GraphQLJSON) -> Double? {
        json.doubleValue
    }
}

extension Float: DecodableScalar {
    static func scalar(from json: GraphQLJSON) -> Float? {
        guard let value = json.doubleValue else {
            return nil
        }
        let narrowed = Float(value)
        // Like JSONDecoder: a finite double beyond Float's range does not fit.
        return narrowed.isFinite || !value.isFinite ? narrowed : nil
    }
}

/// Integers: exact values only (an integral double such as `5.0` counts, `5.5` does not).
protocol DecodableInteger: DecodableScalar, FixedWidthInteger {}

extension DecodableInteger {
    static func scalar(from json: GraphQLJSON) -> Self? {
        json.int64Value.flatMap { Self(exactly: $0) }
    }
}

extension Int: DecodableInteger {}
extension Int8: DecodableInteger {}
extension Int16: DecodableInteger {}
extension Int32: DecodableInteger {}
extension Int64: DecodableInteger {}
extension UInt: DecodableInteger {}
extension UInt8: DecodableInteger {}
extension UInt16: DecodableInteger {}
extension UInt32: DecodableInteger {}

extension UInt64: DecodableInteger {
    static func scalar(from json: GraphQLJSON) -> UInt64? {
        if case .double(let value) = json, value >= 0x1p63, value < 0x1p64, value.rounded(.towardZero) == value {
            return UInt64(value)
        }
        return json.int64Value.flatMap { UInt64(exactly: $0) }
    }
}

extension GraphQLJSON {
    /// Whether `JSONDecoder` decodes `type` specially (not through its own `init(from:)`): `Decimal` from a
    /// number, `URL` from a string, `Data` from base64 (its default strategy); and `GraphQLJSON` is taken as
    /// is. The decoder does the same, so a type decodes alike from the cache and from the network. A metatype
    /// comparison, cheap enough to ask for every nested value.
    static func isDecodedSpecially(_ type: Any.Type) -> Bool {
        type == Decimal.self || type == URL.self || type == Data.self || type == GraphQLJSON.self
    }

    /// The value of a type for which ``isDecodedSpecially(_:)`` holds; `nil` when the JSON does not fit.
    func specialValue<T>(as type: T.Type) -> T? {
        if type == Decimal.self {
            let decimal: Decimal? =
                switch self {
                case .int(let value): Decimal(value)
                case .double(let value): Decimal(string: String(value), locale: Locale(identifier: "en_US_POSIX"))
                default: nil
                }
            return decimal as? T
        }
        if type == URL.self {
            return stringValue.flatMap { URL(string: $0) } as? T
        }
        if type == Data.self {
            return stringValue.flatMap { Data(base64Encoded: $0) } as? T
        }
        return self as? T
    }
}
