/// The `{ … }` part of an operation, field or fragment: what to fetch.
public struct GraphQLSelectionSet: Sendable, Hashable {
    /// The selections in source order; never empty in a parsed document.
    public let selections: [GraphQLSelection]

    /// Creates a selection set.
    public init(selections: [GraphQLSelection]) {
        self.selections = selections
    }
}

/// One entry of a selection set.
public enum GraphQLSelection: Sendable, Hashable {
    /// `alias: name(arguments) @directives { … }`.
    case field(GraphQLField)
    /// `...FragmentName @directives`.
    case fragmentSpread(GraphQLFragmentSpread)
    /// `... on Type @directives { … }` or `... @directives { … }`.
    case inlineFragment(GraphQLInlineFragment)
}

/// A field selection.
///
/// Equality and hashing ignore ``location``: two fields written in different places mean the same thing.
public struct GraphQLField: Sendable, Hashable {
    /// The alias the response uses instead of the name, when given.
    public let alias: String?
    /// The schema field's name.
    public let name: String
    /// The arguments in source order.
    public let arguments: [GraphQLArgument]
    /// The directives in source order (for example `@include(if: $flag)`).
    public let directives: [GraphQLDirective]
    /// The sub-selection, present for fields of object, interface and union type.
    public let selectionSet: GraphQLSelectionSet?
    /// Where the field starts (its alias, or its name); nil when built in code.
    public let location: GraphQLSourceLocation?

    /// Creates a field.
    public init(
        alias: String? = nil,
        name: String,
        arguments: [GraphQLArgument] = [],
        directives: [GraphQLDirective] = [],
        selectionSet: GraphQLSelectionSet? = nil,
        location: GraphQLSourceLocation? = nil
    ) {
        self.alias = alias
        self.name = name
        self.arguments = arguments
        self.directives = directives
        self.selectionSet = selectionSet
        self.location = location
    }

    /// The key under which the field appears in the response: the alias when there is one, else the name.
    public var responseKey: String {
        alias ?? name
    }

    /// The value of the first argument called `name`, if any.
    public func argument(named name: String) -> GraphQLValueLiteral? {
        arguments.first { $0.name == name }?.value
    }

    public static func == (lhs: GraphQLField, rhs: GraphQLField) -> Bool {
        lhs.alias == rhs.alias && lhs.name == rhs.name && lhs.arguments == rhs.arguments
            && lhs.directives == rhs.directives && lhs.selectionSet == rhs.selectionSet
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(alias)
        hasher.combine(name)
        hasher.combine(arguments)
        hasher.combine(directives)
        hasher.combine(selectionSet)
    }
}

/// A `...FragmentName` selection.
///
/// Equality and hashing ignore ``location``.
public struct GraphQLFragmentSpread: Sendable, Hashable {
    /// The name of the fragment definition to include.
    public let name: String
    /// The directives in source order.
    public let directives: [GraphQLDirective]
    /// Where the `...` is; nil when built in code.
    public let location: GraphQLSourceLocation?

    /// Creates a fragment spread.
    public init(name: String, directives: [GraphQLDirective] = [], location: GraphQLSourceLocation? = nil) {
        self.name = name
        self.directives = directives
        self.location = location
    }

    public static func == (lhs: GraphQLFragmentSpread, rhs: GraphQLFragmentSpread) -> Bool {
        lhs.name == rhs.name && lhs.directives == rhs.directives
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(directives)
    }
}

/// A `... on Type { … }` selection; without a type condition it applies to whatever type is in scope.
///
/// Equality and hashing ignore ``location``.
public struct GraphQLInlineFragment: Sendable, Hashable {
    /// The type the selection applies to, when given.
    public let typeCondition: String?
    /// The directives in source order.
    public let directives: [GraphQLDirective]
    /// The fragment's selections.
    public let selectionSet: GraphQLSelectionSet
    /// Where the `...` is; nil when built in code.
    public let location: GraphQLSourceLocation?

    /// Creates an inline fragment.
    public init(
        typeCondition: String? = nil,
        directives: [GraphQLDirective] = [],
        selectionSet: GraphQLSelectionSet,
        location: GraphQLSourceLocation? = nil
    ) {
        self.typeCondition = typeCondition
        self.directives = directives
        self.selectionSet = selectionSet
        self.location = location
    }

    public static func == (lhs: GraphQLInlineFragment, rhs: GraphQLInlineFragment) -> Bool {
        lhs.typeCondition == rhs.typeCondition && lhs.directives == rhs.directives
            && lhs.selectionSet == rhs.selectionSet
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(typeCondition)
        hasher.combine(directives)
        hasher.combine(selectionSet)
    }
}

/// A `@name(arguments)` annotation.
///
/// Equality and hashing ignore ``location``.
public struct GraphQLDirective: Sendable, Hashable {
    /// The directive's name without `@`.
    public let name: String
    /// The arguments in source order.
    public let arguments: [GraphQLArgument]
    /// Where the `@` is; nil when built in code.
    public let location: GraphQLSourceLocation?

    /// Creates a directive.
    public init(name: String, arguments: [GraphQLArgument] = [], location: GraphQLSourceLocation? = nil) {
        self.name = name
        self.arguments = arguments
        self.location = location
    }

    /// The value of the first argument called `name`, if any.
    public func argument(named name: String) -> GraphQLValueLiteral? {
        arguments.first { $0.name == name }?.value
    }

    public static func == (lhs: GraphQLDirective, rhs: GraphQLDirective) -> Bool {
        lhs.name == rhs.name && lhs.arguments == rhs.arguments
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(arguments)
    }
}

/// A `name: value` argument of a field or directive.
///
/// Equality and hashing ignore ``location``.
public struct GraphQLArgument: Sendable, Hashable {
    /// The argument's name.
    public let name: String
    /// The argument's value, possibly using variables.
    public let value: GraphQLValueLiteral
    /// Where the argument's name is; nil when built in code.
    public let location: GraphQLSourceLocation?

    /// Creates an argument.
    public init(name: String, value: GraphQLValueLiteral, location: GraphQLSourceLocation? = nil) {
        self.name = name
        self.value = value
        self.location = location
    }

    public static func == (lhs: GraphQLArgument, rhs: GraphQLArgument) -> Bool {
        lhs.name == rhs.name && lhs.value == rhs.value
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(value)
    }
}
