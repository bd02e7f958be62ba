/// The one error type of the GraphQLLanguage module: a document that does not parse or cannot be executed, or
/// bytes that are not JSON.
///
/// Callers switch on ``code`` (stable across releases) rather than parsing ``message``. The message follows
/// graphql-js wording so that people who know GraphQL recognise it. Neither the message nor ``description`` ever
/// contains a whole document or the value of a string literal (at most the escape sequence at fault), because
/// documents can carry credentials inline; names in messages are shortened to 80 characters.
public struct GraphQLLanguageError: Error, CustomStringConvertible, Sendable {
    /// A stable, machine-readable identification of what went wrong.
    ///
    /// New codes are added as static members; compare with `==` or `switch` over the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case syntaxError
            case unsupportedDefinition
            case unknownFragment
            case fragmentCycle
            case undefinedVariable
            case duplicateOperationName
            case duplicateFragmentName
            case anonymousOperationNotAlone
            case operationNotFound
            case ambiguousOperation
            case tooDeep
            case tooLarge
            case invalidJSON
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The code's stable name, e.g. `syntaxError`, for logs and metrics labels.
        public var description: String {
            base.rawValue
        }

        // MARK: Documents

        /// The document does not follow the GraphQL grammar (lexical or syntactic).
        public static let syntaxError = Code(.syntaxError)
        /// The document contains a type-system definition or extension, which cannot be executed.
        public static let unsupportedDefinition = Code(.unsupportedDefinition)
        /// A fragment spread names a fragment the document does not define.
        public static let unknownFragment = Code(.unknownFragment)
        /// Fragments spread each other in a cycle, so the selection would be infinite.
        public static let fragmentCycle = Code(.fragmentCycle)
        /// An operation uses a variable it does not define.
        public static let undefinedVariable = Code(.undefinedVariable)
        /// Two operations share a name.
        public static let duplicateOperationName = Code(.duplicateOperationName)
        /// Two fragments share a name.
        public static let duplicateFragmentName = Code(.duplicateFragmentName)
        /// An anonymous operation is not the document's only operation.
        public static let anonymousOperationNotAlone = Code(.anonymousOperationNotAlone)
        /// The requested operation is not in the document, or the document has none.
        public static let operationNotFound = Code(.operationNotFound)
        /// No operation name was given and the document has several operations.
        public static let ambiguousOperation = Code(.ambiguousOperation)
        /// The document nests selections, lists or objects deeper than the configured maximum.
        public static let tooDeep = Code(.tooDeep)
        /// The document has more tokens than the configured maximum.
        public static let tooLarge = Code(.tooLarge)

        // MARK: JSON

        /// Bytes that are not one valid JSON value (UTF-8, RFC 8259); ``GraphQLLanguageError/byteOffset`` says
        /// where.
        public static let invalidJSON = Code(.invalidJSON)
    }

    /// The error's contents live in one shared, immutable box, so throwing and propagating the error moves a
    /// single reference: the parser's recursion keeps small stack frames, even in debug builds.
    private final class Storage: Sendable {
        let code: Code
        let message: String
        let locations: [GraphQLSourceLocation]
        let byteOffset: Int?

        init(code: Code, message: String, locations: [GraphQLSourceLocation], byteOffset: Int?) {
            self.code = code
            self.message = message
            self.locations = locations
            self.byteOffset = byteOffset
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

    /// Where in JSON input the problem is (0-based UTF-8 byte offset), for ``Code/invalidJSON``.
    public var byteOffset: Int? {
        storage.byteOffset
    }

    init(code: Code, message: String, locations: [GraphQLSourceLocation] = [], byteOffset: Int? = nil) {
        storage = Storage(code: code, message: message, locations: locations, byteOffset: byteOffset)
    }

    /// `line:column: message` like a compiler diagnostic for documents; `byte N: message` for JSON. Values
    /// (strings, numbers) of documents never appear.
    public var description: String {
        if let first = locations.first {
            return "\(first): \(message)"
        }
        if let byteOffset {
            return "byte \(byteOffset): \(message)"
        }
        return message
    }
}
