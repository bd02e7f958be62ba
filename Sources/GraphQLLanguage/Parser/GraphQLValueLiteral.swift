/// A value written in a document: an argument, a variable's default value or an element of either.
///
/// Numbers keep the text they were written with, because GraphQL integers are unbounded in the grammar and an
/// upstream may accept integers that do not fit in `Int`; the text is also what argument-aware cache keys use.
/// Block strings and regular strings are both `.string`: they mean the same value.
public enum GraphQLValueLiteral: Sendable, Hashable {
    /// `$name`, resolved against the request's variables at execution time.
    case variable(String)
    /// An integer: its value when it fits in `Int`, and always the exact lexeme (`"-0"`, `"123456789012345678901"`).
    case int(Int?, lexeme: String)
    /// A floating-point number exactly as written (`"1.5e-3"`); see ``doubleValue``.
    case float(lexeme: String)
    /// A string or block string, escapes and block indentation already resolved.
    case string(String)
    /// `true` or `false`.
    case boolean(Bool)
    /// `null`.
    case null
    /// An enum value such as `ACTIVE`.
    case `enum`(String)
    /// `[…]`.
    case list([GraphQLValueLiteral])
    /// `{…}`, fields in the order they were written (duplicates are kept; rejecting them is validation's job).
    case object([GraphQLObjectField])

    /// An integer literal from its lexeme, with the `Int` value filled in when it fits.
    public static func int(lexeme: String) -> GraphQLValueLiteral {
        .int(Int(lexeme), lexeme: lexeme)
    }

    /// The integer, when this is an int literal that fits in `Int`.
    public var intValue: Int? {
        if case .int(let value, _) = self {
            return value
        }
        return nil
    }

    /// The number as a `Double`, for int and float literals (large ints lose precision, as in JSON).
    public var doubleValue: Double? {
        switch self {
        case .int(_, let lexeme), .float(let lexeme):
            Double(lexeme)
        default:
            nil
        }
    }

    /// Whether the value contains no variable, as required for default values.
    public var isConstant: Bool {
        switch self {
        case .variable:
            false
        case .list(let values):
            values.allSatisfy(\.isConstant)
        case .object(let fields):
            fields.allSatisfy(\.value.isConstant)
        default:
            true
        }
    }

    /// Calls `body` with the name of every variable the value uses, in source order.
    package func forEachVariable(_ body: (String) -> Void) {
        switch self {
        case .variable(let name):
            body(name)
        case .list(let values):
            for value in values {
                value.forEachVariable(body)
            }
        case .object(let fields):
            for field in fields {
                field.value.forEachVariable(body)
            }
        default:
            break
        }
    }
}

/// One `name: value` entry of an object value.
public struct GraphQLObjectField: Sendable, Hashable {
    /// The input field's name.
    public let name: String
    /// The input field's value.
    public let value: GraphQLValueLiteral

    /// Creates an object field.
    public init(name: String, value: GraphQLValueLiteral) {
        self.name = name
        self.value = value
    }
}
