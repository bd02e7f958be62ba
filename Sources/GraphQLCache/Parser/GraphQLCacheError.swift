/// The one error type of the GraphQLCache module.
///
/// Callers switch on ``code`` (stable across releases) rather than parsing ``message``. The message follows
/// graphql-js wording so that people who know GraphQL recognise it. Neither the message nor ``description`` ever
/// contains a whole document or the value of a string literal (at most the escape sequence at fault), because
/// documents can carry credentials inline; names in messages are shortened to 80 characters.
public struct GraphQLCacheError: Error, CustomStringConvertible, Sendable {
    /// A stable, machine-readable identification of what went wrong.
    ///
    /// New codes are added as static members; compare with `==` or `switch` over the static members.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String

        init(_ name: String) {
            self.name = name
        }

        /// The code's stable name, e.g. `syntaxError`, for logs and metrics labels.
        public var description: String {
            name
        }

        /// The document does not follow the GraphQL grammar (lexical or syntactic).
        public static let syntaxError = Code("syntaxError")
        /// The document contains a type-system definition or extension, which cannot be executed.
        public static let unsupportedDefinition = Code("unsupportedDefinition")
        /// A fragment spread names a fragment the document does not define.
        public static let unknownFragment = Code("unknownFragment")
        /// Fragments spread each other in a cycle, so the selection would be infinite.
        public static let fragmentCycle = Code("fragmentCycle")
        /// A variable is used by an operation (or a fragment it reaches) but not defined by that operation.
        public static let undefinedVariable = Code("undefinedVariable")
        /// Two operations share a name.
        public static let duplicateOperationName = Code("duplicateOperationName")
        /// Two fragments share a name.
        public static let duplicateFragmentName = Code("duplicateFragmentName")
        /// An anonymous operation is not the only operation of its document.
        public static let anonymousOperationNotAlone = Code("anonymousOperationNotAlone")
        /// The requested operation name is not in the document, or the document has no operation at all.
        public static let operationNotFound = Code("operationNotFound")
        /// The document has several operations and no operation name was given.
        public static let ambiguousOperation = Code("ambiguousOperation")
        /// The document nests selection sets, values or list types deeper than the configured maximum.
        public static let tooDeep = Code("tooDeep")
        /// The document has more tokens than the configured maximum.
        public static let tooLarge = Code("tooLarge")
    }

    /// The error's contents live in one shared, immutable box, so throwing and propagating the error moves a
    /// single reference: the parser's recursion keeps small stack frames, even in debug builds.
    private final class Storage: Sendable {
        let code: Code
        let message: String
        let locations: [GraphQLSourceLocation]
        let underlying: (any Error)?

        init(code: Code, message: String, locations: [GraphQLSourceLocation], underlying: (any Error)?) {
            self.code = code
            self.message = message
            self.locations = locations
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

    /// The error that caused this one, when there is one.
    public var underlying: (any Error)? {
        storage.underlying
    }

    init(
        code: Code,
        message: String,
        locations: [GraphQLSourceLocation] = [],
        underlying: (any Error)? = nil
    ) {
        storage = Storage(code: code, message: message, locations: locations, underlying: underlying)
    }

    /// `line:column: message`, like a compiler diagnostic.
    public var description: String {
        guard let first = locations.first else {
            return message
        }
        return "\(first): \(message)"
    }
}
