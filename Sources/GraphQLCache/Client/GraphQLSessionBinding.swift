import CacheCore
import CurlHTTP
import Synchronization

/// What a session lends the GraphQL clients made over it: the credentials in force, whether it ended, and the
/// client state that must outlive any one client (query timestamps, the mutation write marks).
///
/// A BFF holds a session per signed-in user, a million per replica at the top. A client over a binding holds
/// nothing of its own, so ``GraphQLClient/init(shared:scope:binding:secondLevel:)`` makes one as a view on each
/// access instead of keeping one per session; the state is made on the session's first stored answer, mutation or
/// timestamp clear, so a session that only reads what is cached keeps none.
public protocol GraphQLSessionBinding: AnyObject, Sendable {
    /// The credentials the next upstream operation carries (read when it is sent).
    var credentials: UpstreamCredentials { get }
    /// Replaces the credentials later operations carry (a token refresh through a client).
    func updateCredentials(_ credentials: UpstreamCredentials)
    /// Whether the session ended: its clients then refuse work (see ``GraphQLClient/close()``).
    var isClosed: Bool { get }
    /// Ends the clients' work for good (``GraphQLClient/close()`` on any of them).
    func close()
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

/// The binding of a client made on its own (not over a session): its credentials, closed flag and state.
final class OwnGraphQLBinding: GraphQLSessionBinding {
    private let current: Mutex<UpstreamCredentials>
    private let closed = Atomic<Bool>(false)
    private let state: GraphQLClientState

    init(credentials: UpstreamCredentials, configuration: GraphQLClient.Configuration, budget: MemoryBudget?) {
        current = Mutex(credentials)
        state = GraphQLClientState(configuration: configuration, budget: budget)
    }

    var credentials: UpstreamCredentials { current.withLock { $0 } }

    func updateCredentials(_ credentials: UpstreamCredentials) {
        current.withLock { $0 = credentials }
    }

    var isClosed: Bool { closed.load(ordering: .acquiring) }

    func close() {
        closed.store(true, ordering: .releasing)
    }

    var clientState: GraphQLClientState? { state }

    func clientState(orMake make: () -> GraphQLClientState) -> GraphQLClientState { state }
}
