/// `fragment Name on Type @directives { … }`.
///
/// Equality and hashing ignore ``location``.
public struct GraphQLFragmentDefinition: Sendable, Hashable {
    /// The fragment's name (never `on`).
    public let name: String
    /// The type the fragment applies to.
    public let typeCondition: String
    /// The fragment's directives in source order.
    public let directives: [GraphQLDirective]
    /// The fragment's selections.
    public let selectionSet: GraphQLSelectionSet
    /// Where the `fragment` keyword is; nil when built in code.
    public let location: GraphQLSourceLocation?

    /// Creates a fragment definition.
    public init(
        name: String,
        typeCondition: String,
        directives: [GraphQLDirective] = [],
        selectionSet: GraphQLSelectionSet,
        location: GraphQLSourceLocation? = nil
    ) {
        self.name = name
        self.typeCondition = typeCondition
        self.directives = directives
        self.selectionSet = selectionSet
        self.location = location
    }

    public static func == (lhs: GraphQLFragmentDefinition, rhs: GraphQLFragmentDefinition) -> Bool {
        lhs.name == rhs.name && lhs.typeCondition == rhs.typeCondition && lhs.directives == rhs.directives
            && lhs.selectionSet == rhs.selectionSet
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(typeCondition)
        hasher.combine(directives)
        hasher.combine(selectionSet)
    }
}

/// One top-level definition of an executable document.
public enum GraphQLExecutableDefinition: Sendable, Hashable {
    /// A query, mutation or subscription.
    case operation(GraphQLOperationDefinition)
    /// A named fragment.
    case fragment(GraphQLFragmentDefinition)
}
