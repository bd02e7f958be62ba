/// A query to refetch after a mutation, by registered name (the seed's `QueryDescriptor`).
///
/// Names, not types: feature modules declare what a mutation affects without importing each other's query
/// types; a ``GraphQLQueryRegistry`` maps the names to operations.
import GraphQLLanguage

public struct QueryDescriptor: Sendable, Hashable {
    /// How soon the user must see the refetched data.
    public enum RefetchPriority: Sendable, Hashable {
        /// Immediately: refetched before the mutation's caller continues.
        case critical
        /// Soon, but the cached answer may show first.
        case high
        /// When convenient.
        case background
    }

    /// The name the query is registered under (usually its operation name), e.g. `GetAccountBalance`.
    public var queryType: String
    /// The query's variables; those the operation does not declare are dropped.
    public var variables: GraphQLJSONObject
    /// How soon.
    public var priority: RefetchPriority

    /// Creates a descriptor.
    public init(queryType: String, variables: GraphQLJSONObject = GraphQLJSONObject(), priority: RefetchPriority) {
        self.queryType = queryType
        self.variables = variables
        self.priority = priority
    }
}

/// A mutation's declaration of the queries it makes stale (the seed's Strategy 2): the critical ones are
/// refetched from the network before the caller continues, the background ones later, cache first.
public protocol MutationResultProvider: Sendable {
    /// Refetched in parallel with `fetchIgnoringCacheData`, awaited.
    var criticalRefetchQueries: [QueryDescriptor] { get }
    /// Refetched one after the other with `returnCacheDataAndFetch`, in a detached task.
    var backgroundRefetchQueries: [QueryDescriptor] { get }
}

/// How one refetch went.
public struct RefetchOutcome: Sendable {
    /// The query.
    public var descriptor: QueryDescriptor
    /// Why it failed (unregistered name, invalid variables, upstream error, …); `nil` when it succeeded.
    public var error: GraphQLCacheError?
    /// Where its last answer came from, when it succeeded.
    public var source: GraphQLResultSource?
    /// Whether its network answer was stored.
    public var wasStored: Bool

    /// Creates an outcome.
    public init(
        descriptor: QueryDescriptor,
        error: GraphQLCacheError? = nil,
        source: GraphQLResultSource? = nil,
        wasStored: Bool = false
    ) {
        self.descriptor = descriptor
        self.error = error
        self.source = source
        self.wasStored = wasStored
    }

    /// Whether the refetch succeeded.
    public var succeeded: Bool {
        error == nil
    }
}

/// The outcomes of a group of refetches, in the order the descriptors were given. Partial failure is visible:
/// every refetch has its outcome.
public struct RefetchReport: Sendable {
    /// One outcome per descriptor, in order.
    public var outcomes: [RefetchOutcome]

    /// Creates a report.
    public init(outcomes: [RefetchOutcome]) {
        self.outcomes = outcomes
    }

    /// The refetches that failed.
    public var failures: [RefetchOutcome] {
        outcomes.filter { !$0.succeeded }
    }

    /// Whether every refetch succeeded (true when there were none).
    public var succeeded: Bool {
        outcomes.allSatisfy(\.succeeded)
    }
}
