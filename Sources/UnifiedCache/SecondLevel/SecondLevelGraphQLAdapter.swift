import CacheCore
import Foundation
import GraphQLCache

/// The second level as one session's GraphQL client sees it: results named by a keyed hash of the canonical
/// document, variables and operation name, tagged with their kind and operation name.
///
/// GraphQL entries are not tagged by record: every clear that touches GraphQL data of a session (a feature with
/// GraphQL parts, an account, a query, a mutation of either protocol) removes the session's GraphQL entries from the
/// second level, at a cost of the entries removed. Coarse, but never stale: a result shares records with others.
struct SecondLevelGraphQLAdapter: GraphQLSecondLevel {
    let front: SecondLevelFront
    let namespaces: SecondLevelFront.SessionNamespaces

    init(front: SecondLevelFront, scope: CacheScope, session: SecondLevelNamespace) {
        self.front = front
        self.namespaces = front.namespaces(for: scope, session: session)
    }

    var backend: CacheBackendDescription { front.store.backend }

    func read(_ operation: GraphQLSecondLevelKey, in scope: CacheScope) async -> GraphQLSecondLevelRead {
        let name = front.key(.graphQL, operation.text, in: scope, namespaces)
        // Indexed under its kind and operation name only (see the tags of ``write(_:for:in:generation:)``).
        let dating = SecondLevelFront.Dating<GraphQLSecondLevelEntry>(
            storedAt: \.storedAt,
            carries: { _, label in
                label == .kind(.graphQL) || label == .operation(operation.operationName)
            })
        return await front.lookup(name, kind: .graphQL, decode: SecondLevelEntryCodec.decodeGraphQL, dating: dating)
    }

    func write(
        _ entry: GraphQLSecondLevelEntry, for operation: GraphQLSecondLevelKey, in scope: CacheScope,
        generation: SecondLevelGeneration
    ) {
        let name = front.key(.graphQL, operation.text, in: scope, namespaces)
        front.write(
            SecondLevelEntryCodec.encode(entry),
            kind: .graphQL,
            for: name,
            generation: generation,
            timeToLive: front.timeToLive(storedAt: entry.storedAt, expiresAt: entry.expiresAt, hasValidators: false),
            tags: [
                front.names.tag(.kind(.graphQL), in: name.namespace),
                front.names.tag(.operation(operation.operationName), in: name.namespace),
            ]
        )
    }

    func recordUnusable(_ operation: GraphQLSecondLevelKey, in scope: CacheScope) {
        front.recordUnusable()
    }
}
