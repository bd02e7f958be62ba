import CacheCore
import Foundation

/// A second level shared by every replica of a fleet, as a GraphQL client sees it: a query's response data is read
/// after a miss in the normalized store and written after a network answer was merged into it.
///
/// GraphQLCache knows nothing of where the second level lives or how names are derived: the facade (UnifiedCache)
/// fills this in over a `SecondLevelStore`. Every method is total: trouble is a miss
/// (``GraphQLSecondLevelRead/unavailable``), never an error to the caller.
public protocol GraphQLSecondLevel: Sendable {
    /// The result stored for `operation` in `scope`, within the configured read deadline.
    func read(_ operation: GraphQLSecondLevelKey, in scope: CacheScope) async -> GraphQLSecondLevelRead

    /// Queues `entry` for `operation` in `scope`, stored only if the scope's second-level namespace is still at
    /// `generation`. Returns at once.
    func write(
        _ entry: GraphQLSecondLevelEntry, for operation: GraphQLSecondLevelKey, in scope: CacheScope,
        generation: SecondLevelGeneration)

    /// A value was found but could not be used (not a JSON object): counted, then treated as a miss.
    func recordUnusable(_ operation: GraphQLSecondLevelKey, in scope: CacheScope)
}

/// What identifies a query's result in the second level: the canonical document (operation and fragments, as
/// sent), the canonical variables (defaults filled in, sorted keys) and the operation name.
public struct GraphQLSecondLevelKey: Hashable, Sendable {
    public var document: String
    public var variables: String
    public var operationName: String

    public init(document: String, variables: String, operationName: String) {
        self.document = document
        self.variables = variables
        self.operationName = operationName
    }

    /// The three parts in one text (unit separators between them), for hashing into a name.
    public var text: String { operationName + "\u{1F}" + variables + "\u{1F}" + document }
}

/// A query's result as the second level keeps it.
public struct GraphQLSecondLevelEntry: Sendable, Equatable {
    /// The response's `data` object as JSON.
    public var data: [UInt8]
    /// When the origin replica merged the answer, on the wall clock.
    public var storedAt: Date
    /// Until when another replica may take it as fresh: the shortest lifetime any freshness rule of the origin
    /// gives (so no field is served past its own); nil when the rules never expire anything.
    public var expiresAt: Date?

    public init(data: [UInt8], storedAt: Date, expiresAt: Date?) {
        self.data = data
        self.storedAt = storedAt
        self.expiresAt = expiresAt
    }

    /// Fresh until `expiresAt` (exclusive).
    public func isFresh(at date: Date) -> Bool {
        guard let expiresAt else { return true }
        return date < expiresAt
    }
}

/// What a second-level read found, as a GraphQL client uses it.
public enum GraphQLSecondLevelRead: Sendable, Equatable {
    case hit(GraphQLSecondLevelEntry, generation: SecondLevelGeneration)
    case miss(generation: SecondLevelGeneration)
    case unavailable
}
