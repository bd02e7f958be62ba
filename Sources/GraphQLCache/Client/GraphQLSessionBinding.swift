import CacheCore
import CurlHTTP
import Synchronization

/// What a session lends the GraphQL clients made over it: the credentials in force and whether it ended (its
/// `UpstreamSessionBinding` part, from CurlHTTP, shared with REST services), and the client state that must
/// outlive any one client (query timestamps, the mutation write marks).
///
/// A BFF holds a session per signed-in user, a million per replica at the top. A client over a binding holds
/// nothing of its own, so ``GraphQLClient/init(shared:scope:binding:secondLevel:)`` makes one as a view on each
/// access instead of keeping one per session; the state is made on the session's first stored answer, mutation or
/// timestamp clear, so a session that only reads what is cached keeps none.
public protocol GraphQLSessionBinding: UpstreamSessionBinding {
    /// The session's client state, if it was made.
    var clientState: GraphQLClientState? { get }
    /// The session's client state, made by `make` on first need (under the session's lock, so two first needs
    /// make one) and kept for the session's life.
    func clientState(orMake make: () -> GraphQLClientState) -> GraphQLClientState
}

/// What a session's GraphQL clients remember between operations: when each query was last stored, and how many
/// mutations wrote (so an answer from before a mutation never overwrites its result).
public final class GraphQLClientState: Sendable {
    let timestamps: QueryTimestamps
    /// How many of the session's mutations have written their result. A query's answer is written only if none
    /// did since the query left, under this lock.
    let landedMutations = Mutex<UInt64>(0)
    /// When the session's last mutation wrote its result (store clock nanoseconds; `Int64.min` before any): a
    /// shared public answer kept before it may predate what the mutation changed, and is not served.
    let lastMutationWrite = Atomic<Int64>(.min)

    /// Creates an empty state that keeps at most `configuration.maximumTrackedQueries` timestamps, each charged to
    /// `budget` while kept (a session may track thousands of queries: the budget must see them).
    public init(configuration: GraphQLClient.Configuration, budget: MemoryBudget? = nil) {
        timestamps = QueryTimestamps(limit: configuration.maximumTrackedQueries, budget: budget)
    }

    /// How many query timestamps are kept.
    public var queryTimestampCount: Int {
        timestamps.count
    }

    /// What the kept timestamps are charged to the budget now (0 without a budget).
    public var chargedBytes: Int {
        timestamps.chargedBytes
    }
}

/// The binding of a client made on its own (not over a session): the standalone lifecycle (credentials, closed
/// flag) and its state.
final class OwnGraphQLBinding: GraphQLSessionBinding, StandaloneBinding {
    let lifecycle: StandaloneLifecycle
    private let state: GraphQLClientState

    init(credentials: UpstreamCredentials, configuration: GraphQLClient.Configuration, budget: MemoryBudget?) {
        lifecycle = StandaloneLifecycle(credentials: credentials)
        state = GraphQLClientState(configuration: configuration, budget: budget)
    }

    var clientState: GraphQLClientState? { state }

    func clientState(orMake make: () -> GraphQLClientState) -> GraphQLClientState { state }
}
