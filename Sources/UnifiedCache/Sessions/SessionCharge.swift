/// What the memory budget is charged for a session's own machinery (not its cached data, which the stores charge
/// as they store it): a live session, its parts once used, and its cookie store once an upstream set a cookie.
///
/// The figures are the process's resident-set growth per session measured with `ucache-bench sessions` (release
/// build, Linux): the charge tracks what a session really costs, so a memory budget bounds the process and not
/// only the cached payloads. ``deviation(ofCharge:fromMeasured:)`` is how the bench and the tests compare them.
public struct SessionCharge: Sendable, Equatable {
    /// A live session before it is used: the session object, its slot in the registry and its scope.
    public var session: Int
    /// What the REST store's structures for the session's scope cost beyond what the store charges per entry, with
    /// the session's cookie jar (made by its first upstream call; its libcurl store is ``cookieStore``), charged when the session first asks for its REST view (the view itself is made per access and kept by
    /// nobody).
    public var rest: Int
    /// What the normalized store's structures for the scope cost beyond what the store charges per record, with
    /// the session's GraphQL state (query timestamps, mutation marks), charged when the session first asks for its
    /// GraphQL view.
    public var graphQL: Int
    /// Its account resolver, made when an answer teaches a pair or the manager needs it.
    public var accounts: Int
    /// libcurl's cookie store of the session's jar, made when an upstream first sets a cookie: an estimate (a share
    /// handle, its eight locks and libcurl's cookie table), as the bench makes no upstream call.
    public var cookieStore: Int

    /// Creates a charge model.
    public init(session: Int, rest: Int, graphQL: Int, accounts: Int, cookieStore: Int) {
        self.session = session
        self.rest = rest
        self.graphQL = graphQL
        self.accounts = accounts
        self.cookieStore = cookieStore
    }

    /// The model the hub charges with.
    public static let measured = SessionCharge(
        session: 512, rest: 176, graphQL: 464, accounts: 112, cookieStore: 2_048)

    /// Resident bytes per session the bench measured, beyond what the stores charge for the cached payload: a
    /// session never used (200,000 of them); with one cached REST read (`--live`, 1,000,000 of them); with that
    /// and one GraphQL answer (100,000 of them). Each in a process of its own.
    public static let measuredResidentBytes = (idle: 503, rest: 637, restAndGraphQL: 1_135)

    /// What a session is charged in all, given the parts it made.
    public func total(
        rest madeREST: Bool, graphQL madeGraphQL: Bool, accounts madeAccounts: Bool = false,
        cookieStore madeStore: Bool = false
    ) -> Int {
        session + (madeREST ? rest : 0) + (madeGraphQL ? graphQL : 0) + (madeAccounts ? accounts : 0)
            + (madeStore ? cookieStore : 0)
    }

    /// How far a charge is from a measured figure, as a fraction of the measurement (0.1 is 10 % off either way).
    public static func deviation(ofCharge charge: Int, fromMeasured measured: Int) -> Double {
        guard measured > 0 else { return charge == 0 ? 0 : .infinity }
        return abs(Double(charge - measured)) / Double(measured)
    }
}
