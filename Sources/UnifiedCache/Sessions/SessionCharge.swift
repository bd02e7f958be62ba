/// What the memory budget is charged for a session's own machinery (not its cached data, which the stores charge
/// as they store it): a live session, its parts once used, and its cookie store once an upstream set a cookie.
///
/// The figures are the process's resident-set growth per session measured with `ucache-bench sessions` (release
/// build, Linux): the charge tracks what a session really costs, so a memory budget bounds the process and not
/// only the cached payloads. ``deviation(ofCharge:fromMeasured:)`` is how the bench and the tests compare them.
public struct SessionCharge: Sendable, Equatable {
    /// A live session before it is used: the session object, its slot in the registry and its scope.
    public var session: Int
    /// Added once the session is used: its REST service and GraphQL client handles, resolver, manager and
    /// cookie jar (without a store).
    public var parts: Int
    /// Added when an upstream first sets a cookie: libcurl's cookie store of the session's jar.
    public var cookieStore: Int

    /// Creates a charge model.
    public init(session: Int, parts: Int, cookieStore: Int) {
        self.session = session
        self.parts = parts
        self.cookieStore = cookieStore
    }

    /// The model the hub charges with.
    public static let measured = SessionCharge(session: 512, parts: 896, cookieStore: 2_048)

    /// Resident bytes per session the bench measured for the model's figures (idle; used with one cached REST
    /// read and one GraphQL record, their payload excluded).
    public static let measuredResidentBytes = (idle: 487, used: 1_400)

    /// What a session is charged in all, given what it made.
    public func total(partsMade: Bool, cookieStore storeMade: Bool) -> Int {
        session + (partsMade ? parts : 0) + (storeMade ? cookieStore : 0)
    }

    /// How far a charge is from a measured figure, as a fraction of the measurement (0.1 is 10 % off either way).
    public static func deviation(ofCharge charge: Int, fromMeasured measured: Int) -> Double {
        guard measured > 0 else { return charge == 0 ? 0 : .infinity }
        return abs(Double(charge - measured)) / Double(measured)
    }
}
