/// A `query`, `mutation` or `subscription` (or the `{ … }` shorthand for an anonymous query).
///
/// Equality and hashing ignore ``location``.
public struct GraphQLOperationDefinition: Sendable, Hashable {
    /// The three kinds of operation.
    public enum Kind: String, Sendable, Hashable {
        /// A read; the only kind the cache answers from its store.
        case query
        /// A write; its result updates the store.
        case mutation
        /// A stream of results.
        case subscription
    }

    /// The kind; `.query` for the shorthand form.
    public let kind: Kind
    /// The operation's name; nil for anonymous operations.
    public let name: String?
    /// The variables the operation declares, in source order.
    public let variableDefinitions: [GraphQLVariableDefinition]
    /// The operation's directives in source order.
    public let directives: [GraphQLDirective]
    /// What the operation selects on the root type.
    public let selectionSet: GraphQLSelectionSet
    /// Where the operation starts (its keyword, or `{` for the shorthand); nil when built in code.
    public let location: GraphQLSourceLocation?

    /// Creates an operation.
    public init(
        kind: Kind,
        name: String? = nil,
        variableDefinitions: [GraphQLVariableDefinition] = [],
        directives: [GraphQLDirective] = [],
        selectionSet: GraphQLSelectionSet,
        location: GraphQLSourceLocation? = nil
    ) {
        self.kind = kind
        self.name = name
        self.variableDefinitions = variableDefinitions
        self.directives = directives
        self.selectionSet = selectionSet
        self.location = location
    }

    /// The declaration of the variable called `name` (without `$`), if the operation declares it.
    public func variableDefinition(named name: String) -> GraphQLVariableDefinition? {
        variableDefinitions.first { $0.name == name }
    }

    public static func == (lhs: GraphQLOperationDefinition, rhs: GraphQLOperationDefinition) -> Bool {
        lhs.kind == rhs.kind && lhs.name == rhs.name && lhs.variableDefinitions == rhs.variableDefinitions
            && lhs.directives == rhs.directives && lhs.selectionSet == rhs.selectionSet
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(name)
        hasher.combine(variableDefinitions)
        hasher.combine(directives)
        hasher.combine(selectionSet)
    }
}

/// `$name: Type = default @directives` in an operation's variable list.
///
/// Equality and hashing ignore ``location``.
public struct GraphQLVariableDefinition: Sendable, Hashable {
    /// The variable's name without `$`.
    public let name: String
    /// The declared type.
    public let type: GraphQLTypeReference
    /// The value used when the request does not provide one; always constant.
    public let defaultValue: GraphQLValueLiteral?
    /// The definition's (constant) directives.
    public let directives: [GraphQLDirective]
    /// Where the `$` is; nil when built in code.
    public let location: GraphQLSourceLocation?

    /// Creates a variable definition.
    public init(
        name: String,
        type: GraphQLTypeReference,
        defaultValue: GraphQLValueLiteral? = nil,
        directives: [GraphQLDirective] = [],
        location: GraphQLSourceLocation? = nil
    ) {
        self.name = name
        self.type = type
        self.defaultValue = defaultValue
        self.directives = directives
        self.location = location
    }

    public static func == (lhs: GraphQLVariableDefinition, rhs: GraphQLVariableDefinition) -> Bool {
        lhs.name == rhs.name && lhs.type == rhs.type && lhs.defaultValue == rhs.defaultValue
            && lhs.directives == rhs.directives
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(type)
        hasher.combine(defaultValue)
        hasher.combine(directives)
    }
}

/// A type as written in a variable definition: `Int`, `[Int]`, `[Int!]!`.
public indirect enum GraphQLTypeReference: Sendable, Hashable, CustomStringConvertible {
    /// A named type such as `ID` or `AccountFilter`.
    case named(String)
    /// `[T]`.
    case list(GraphQLTypeReference)
    /// `T!`.
    case nonNull(GraphQLTypeReference)

    /// The innermost named type, with list and non-null wrappers removed.
    public var namedType: String {
        switch self {
        case .named(let name):
            name
        case .list(let inner), .nonNull(let inner):
            inner.namedType
        }
    }

    /// The type in GraphQL syntax.
    public var description: String {
        switch self {
        case .named(let name):
            name
        case .list(let inner):
            "[\(inner)]"
        case .nonNull(let inner):
            "\(inner)!"
        }
    }
}
