/// A JSON value: what GraphQL responses, variables and cached scalars are made of.
///
/// The store needs JSON as a value it can hash, compare and keep across threads, and `JSONSerialization`'s
/// `Any` trees are none of these; `Codable` would need a type per query, which a cache without code generation
/// does not have. Integers that fit in `Int64` stay exact (`.int`), so ids and cents written as numbers survive
/// a round trip; other numbers are `.double`.
///
/// Arrays and objects hold their elements inline (no `indirect` boxes), so building and reading a tree costs
/// one allocation per array or object, not one per value.
public enum GraphQLJSON: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// An integer that fits in `Int64`, written without fraction or exponent.
    case int(Int64)
    /// Any other number.
    case double(Double)
    /// A string.
    case string(String)
    /// `[…]`.
    case array([GraphQLJSON])
    /// `{…}`, members in the order they were written.
    case object(GraphQLJSONObject)

    /// The members, when this is an object.
    public var objectValue: GraphQLJSONObject? {
        if case .object(let object) = self {
            return object
        }
        return nil
    }

    /// The elements, when this is an array.
    public var arrayValue: [GraphQLJSON]? {
        if case .array(let elements) = self {
            return elements
        }
        return nil
    }

    /// The string, when this is a string.
    public var stringValue: String? {
        if case .string(let string) = self {
            return string
        }
        return nil
    }

    /// The boolean, when this is a boolean.
    public var boolValue: Bool? {
        if case .bool(let value) = self {
            return value
        }
        return nil
    }

    /// The integer, when this is an integer (a `.double` with an integral value that fits counts too).
    public var int64Value: Int64? {
        switch self {
        case .int(let value):
            return value
        case .double(let value):
            guard value.rounded(.towardZero) == value, value >= -0x1p63, value < 0x1p63 else {
                return nil
            }
            return Int64(value)
        default:
            return nil
        }
    }

    /// The number as a `Double`, for `.int` and `.double`.
    public var doubleValue: Double? {
        switch self {
        case .int(let value):
            return Double(value)
        case .double(let value):
            return value
        default:
            return nil
        }
    }

    /// Whether this is `null`.
    public var isNull: Bool {
        if case .null = self {
            return true
        }
        return false
    }

    /// The member `key` of an object; `nil` for other values and absent members.
    public subscript(key: String) -> GraphQLJSON? {
        objectValue?[key]
    }

    /// A short name of the value's kind for error messages, which must not show the value itself.
    package var kindDescription: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .int, .double: "a number"
        case .string: "a string"
        case .array: "a list"
        case .object: "an object"
        }
    }
}

extension GraphQLJSON: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    public init(nilLiteral: ()) {
        self = .null
    }

    public init(booleanLiteral value: Bool) {
        self = .bool(value)
    }

    public init(integerLiteral value: Int64) {
        self = .int(value)
    }

    public init(floatLiteral value: Double) {
        self = .double(value)
    }

    public init(stringLiteral value: String) {
        self = .string(value)
    }

    public init(arrayLiteral elements: GraphQLJSON...) {
        self = .array(elements)
    }

    public init(dictionaryLiteral elements: (String, GraphQLJSON)...) {
        self = .object(GraphQLJSONObject(elements))
    }
}

extension GraphQLJSON: CustomStringConvertible {
    /// Compact JSON text. Contains the values: do not log it where responses must not appear.
    public var description: String {
        jsonText()
    }
}
