/// An operation known at compile time: its document, its name and the type its `data` decodes into.
///
/// The seeds' feature kits get these from Apollo's code generation; here they are written by hand (or by any
/// generator) as small structs. The document is static so the client parses it once per type, not per call.
///
/// ```swift
/// struct GetAccountBalanceQuery: GraphQLQuery, CacheableQuery {
///     static let document = "query GetAccountBalance($accountId: ID!) { account(id: $accountId) { id balance } }"
///     static let operationName = "GetAccountBalance"
///     static let cacheTimeout: QueryCacheTimeout = 30
///     let accountId: String
///     var variables: GraphQLJSONObject { ["accountId": .string(accountId)] }
///     struct Data: Decodable, Sendable { var account: Account? }
///     struct Account: Decodable, Sendable { var id: String; var balance: Double }
/// }
/// ```
import GraphQLLanguage

public protocol GraphQLOperation: Sendable {
    /// What the response's `data` decodes into; its keys are response keys (aliases where the document uses
    /// them). Members it does not declare (such as the `__typename` the client adds) are ignored.
    ///
    /// Cached answers are decoded straight from the store's records while the session's read lock is held, so
    /// `init(from:)` must not call back into the client or the store of the same session.
    associatedtype Data: Decodable & Sendable

    /// The document text: the operation and the fragments it spreads. Other operations may be present;
    /// ``operationName`` picks one.
    static var document: String { get }
    /// The name of the operation to run, which is also the first half of its query key.
    static var operationName: String { get }
    /// The request's variables. Default: none.
    var variables: GraphQLJSONObject { get }
}

extension GraphQLOperation {
    /// No variables.
    public var variables: GraphQLJSONObject {
        GraphQLJSONObject()
    }
}

/// A read: answered from the cache or the network according to a ``GraphQLCachePolicy``.
public protocol GraphQLQuery: GraphQLOperation {}

/// A write: always sent upstream; its result is merged into the normalized store, so every cached query that
/// reads the objects it returns sees the change (the seeds' normalized auto-update).
public protocol GraphQLMutation: GraphQLOperation {}

/// A query type with its own freshness (the seed's per-query timeout, Option 2).
///
/// Used when the call gives no explicit `cacheTimeout:`; see ``GraphQLCacheConfig`` for the whole precedence.
public protocol CacheableQuery {
    /// How long a cached answer of this query stays fresh; `.useDefault` (the seed's `nil`) defers to the
    /// per-type and per-field rules and the global default.
    static var cacheTimeout: QueryCacheTimeout { get }
}

/// An operation known only at run time: document text and variables in, JSON out.
///
/// For gateways and tools that forward operations they did not compile against; the answer is the response's
/// `data` as a `GraphQLJSONObject`.
public struct UntypedGraphQLOperation: Sendable, Hashable {
    /// The document text.
    public var document: String
    /// Which operation of the document to run; `nil` when it has exactly one.
    public var operationName: String?
    /// The request's variables.
    public var variables: GraphQLJSONObject

    /// Creates an untyped operation.
    public init(document: String, operationName: String? = nil, variables: GraphQLJSONObject = GraphQLJSONObject()) {
        self.document = document
        self.operationName = operationName
        self.variables = variables
    }
}
