import CacheCore
import Foundation
import GraphQLLanguage

/// A second level shared by every replica of a fleet, as a GraphQL client sees it: a query's response data is read
/// after a miss in the normalized store and written after a network answer was merged into it.
///
/// GraphQLCache knows nothing of where the second level lives or how names are derived: the facade (UnifiedCache)
/// fills this in over a `SecondLevelStore`. Every method is total: trouble is a miss
/// (`GraphQLSecondLevelRead.unavailable`), never an error to the caller.
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

    /// The store behind it, for the read's telemetry (`db.system.name`, `db.operation.name`, `server.address`).
    /// Default: ``CacheBackendDescription/unknown``.
    var backend: CacheBackendDescription { get }
}

extension GraphQLSecondLevel {
    public var backend: CacheBackendDescription { .unknown }
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

    /// Fresh until `expiresAt` (exclusive), and never longer than `lifetime` seconds after ``storedAt`` (the reading
    /// replica's own shortest lifetime; nil: no bound), so a forged or corrupt expiry cannot keep it fresh longer.
    public func isFresh(at date: Date, lifetime: Double? = nil) -> Bool {
        if let expiresAt, date >= expiresAt { return false }
        guard let lifetime else { return true }
        return date < OutsideValue.date(storedAt, advancedBy: lifetime)
    }

    /// Whether a replica whose wall clock reads `now` can use the entry at all: its stored-at time is a reading it
    /// can believe (`OutsideValue.isPlausible(_:near:)`). An entry from a badly wrong clock, or forged, is refused.
    public func isPlausible(at now: Date) -> Bool {
        OutsideValue.isPlausible(storedAt, near: now)
    }
}

/// What a second-level read found, as a GraphQL client uses it: a result and the generation to write back with, a
/// miss with the generation an answer fetched now may be written with, or no answer (go upstream, write nothing).
public typealias GraphQLSecondLevelRead = SecondLevelEntryRead<GraphQLSecondLevelEntry>
