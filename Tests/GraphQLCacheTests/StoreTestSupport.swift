import CacheCore
import GraphQLCache
import Synchronization
import Testing

let alice = CacheScope.session("alice")
let bob = CacheScope.session("bob")

/// The fixture bank's interfaces and unions.
let bankPossibleTypes: [String: Set<String>] = [
    "Node": ["Account", "Transaction", "Card", "Payee", "User", "Profile"],
    "SearchResult": ["Account", "Payee", "Transaction"],
]

/// A store on a manual clock, keyed by `__typename:id` unless `keyed` is false.
func makeNormalizedStore(
    keyed: Bool = true,
    possibleTypes: [String: Set<String>] = bankPossibleTypes,
    clock: ManualCacheClock = ManualCacheClock(),
    budget: MemoryBudget? = nil,
    observer: (any CacheEventObserver)? = nil,
    configure: (inout GraphQLNormalizedStore.Configuration) -> Void = { _ in }
) throws -> GraphQLNormalizedStore {
    var cacheConfiguration = GraphQLCacheConfiguration(possibleTypes: possibleTypes)
    if keyed {
        cacheConfiguration.registerCacheKeyProvider(TypenameIDKeyProvider())
    }
    var configuration = GraphQLNormalizedStore.Configuration(stripeCount: 4)
    configure(&configuration)
    return try GraphQLNormalizedStore(
        cacheConfiguration: cacheConfiguration,
        configuration: configuration,
        clock: clock,
        budget: budget,
        observer: observer
    )
}

/// Parses and prepares a document's operation.
func prepare(_ source: String, operationName: String? = nil) throws -> GraphQLPreparedOperation {
    try GraphQLParser.parse(source).prepare(operationName: operationName)
}

/// A JSON object from text.
func jsonObject(_ text: String) throws -> GraphQLJSONObject {
    try #require(try GraphQLJSON(parsing: text).objectValue)
}

struct StoreTestFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

extension GraphQLNormalizedStore {
    /// Writes `data` (JSON text) and requires it to be stored.
    @discardableResult
    func write(
        _ operation: GraphQLPreparedOperation,
        variables: GraphQLJSONObject = [:],
        json data: String,
        in scope: CacheScope = alice
    ) throws -> GraphQLChangeSet {
        let outcome = try write(operation, variables: variables, data: try jsonObject(data), in: scope)
        guard let changes = outcome.changes else {
            throw StoreTestFailure("the write was not stored: \(outcome)")
        }
        return changes
    }

    /// Writes `Account:<id>` with balance `id` through the bank's balance query (the store tests' unit of data).
    func writeAccount(_ id: Int, in scope: CacheScope = alice) throws {
        try write(
            try prepare(BankOperations.balance),
            variables: ["id": .string("\(id)")],
            json: #"{"account": {"__typename": "Account", "id": "\#(id)", "balance": \#(id)}}"#,
            in: scope
        )
    }

    /// The data of a read that must hit.
    func hitData(
        _ operation: GraphQLPreparedOperation,
        variables: GraphQLJSONObject = [:],
        in scope: CacheScope = alice
    ) throws -> GraphQLJSONObject {
        switch try read(operation, variables: variables, in: scope) {
        case .hit(let hit):
            return hit.data
        case .miss(let miss):
            throw StoreTestFailure("expected a hit, missed at '\(miss.path)' (\(miss.reason))")
        }
    }

    /// The miss of a read that must miss.
    func miss(
        _ operation: GraphQLPreparedOperation,
        variables: GraphQLJSONObject = [:],
        in scope: CacheScope = alice
    ) throws -> GraphQLCacheMiss {
        switch try read(operation, variables: variables, in: scope) {
        case .hit(let hit):
            throw StoreTestFailure("expected a miss, got \(hit.data)")
        case .miss(let miss):
            return miss
        }
    }

    /// The storage keys of one record's fields (empty when there is no such record).
    func fieldNames(_ key: String, in scope: CacheScope = alice) -> Set<String> {
        Set(record(key, in: scope)?.fields.keys.map { $0 } ?? [])
    }

    /// The keys of the scope's records, sorted.
    func recordKeys(in scope: CacheScope = alice) -> [String] {
        records(in: scope).map(\.key)
    }
}

/// Collects events for later inspection.
final class StoreEventRecorder: CacheEventObserver {
    private let recorded = Mutex<[CacheEvent]>([])

    func cacheDidEmit(_ event: CacheEvent) {
        recorded.withLock { $0.append(event) }
    }

    var events: [CacheEvent] {
        recorded.withLock { $0 }
    }
}

// MARK: - The fixture bank's operations

enum BankOperations {
    static let balance = """
        query GetBalance($id: ID!) { account(id: $id) { __typename id balance } }
        """
    static let details = """
        query GetAccount($id: ID!) { account(id: $id) { __typename id name balance type } }
        """
    static let accounts = """
        query Accounts { accounts { __typename id name balance } }
        """
    static let payment = """
        mutation MakePayment($input: PaymentInput!) {
          makePayment(input: $input) {
            __typename
            account { __typename id balance }
            transaction { __typename id amount }
          }
        }
        """

    static let balanceData = """
        {"account": {"__typename": "Account", "id": "101", "balance": 2500.0}}
        """
    static let detailsData = """
        {"account": {"__typename": "Account", "id": "101", "name": "Everyday Account", "balance": 2500.0,
         "type": "CHECKING"}}
        """
    static let accountsData = """
        {"accounts": [
          {"__typename": "Account", "id": "101", "name": "Everyday Account", "balance": 2500.0},
          {"__typename": "Account", "id": "102", "name": "Goal Saver", "balance": 10000.0}
        ]}
        """
    static let paymentData = """
        {"makePayment": {"__typename": "PaymentResult",
          "account": {"__typename": "Account", "id": "101", "balance": 2400.0},
          "transaction": {"__typename": "Transaction", "id": "tx-101-26", "amount": -100.0}}}
        """
}
