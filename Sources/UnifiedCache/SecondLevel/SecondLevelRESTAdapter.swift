import CacheCore
import Foundation
import RESTCache

/// The second level as one session's REST service sees it: keyed-hash names, the binary entry form sealed by
/// ``SecondLevelSealing``, tags, and the clears after a mutation. Made by the hub for each session (and the shared scope is reached through it too).
struct SecondLevelRESTAdapter: RESTSecondLevel {
    let front: SecondLevelFront
    /// The hub's entity links: what a REST mutation changed, for the entity tags it clears.
    let links: EntityLinks
    let namespaces: SecondLevelFront.SessionNamespaces

    init(front: SecondLevelFront, links: EntityLinks, scope: CacheScope) {
        self.front = front
        self.links = links
        self.namespaces = front.namespaces(for: scope)
    }

    func read(key: String, in scope: CacheScope) async -> RESTSecondLevelRead {
        let name = front.key(.rest, key, in: scope, namespaces)
        switch await front.lookup(name, kind: .rest, decode: SecondLevelEntryCodec.decode) {
        case .unavailable: return .unavailable
        case .miss(let generation): return .miss(generation: generation)
        case .hit(let entry, let generation): return .hit(entry, generation: generation)
        }
    }

    func write(_ entry: RESTSecondLevelEntry, key: String, in scope: CacheScope, generation: SecondLevelGeneration) {
        var entry = entry
        if scope == .shared {
            // Shared values carry nothing that names an account: no session reads them through account clears.
            entry.metadata.accounts = []
            entry.metadata.entityKeys = []
        }
        let name = front.key(.rest, key, in: scope, namespaces)
        front.write(
            SecondLevelEntryCodec.encode(entry),
            kind: .rest,
            for: name,
            generation: generation,
            timeToLive: front.timeToLive(
                storedAt: entry.storedAt, expiresAt: entry.expiresAt, hasValidators: !entry.metadata.validators.isEmpty),
            tags: front.tags(ofREST: entry.metadata, key: key, in: name.namespace)
        )
    }

    func invalidate(
        _ targets: [InvalidationTarget], method: CurlHTTPClient.Method, path: String,
        response: CurlHTTPClient.Response, in scope: CacheScope
    ) async {
        var labels: Set<SecondLevelNames.Label> = []
        for target in targets {
            switch target {
            case .keyPrefix(let prefix): labels.insert(.keyPrefix(prefix))
            case .domain(let domain): labels.insert(.domain(domain))
            case .account(let account): labels.insert(.account(account))
            case .entityKey(let entity): labels.insert(.entity(entity))
            case .path(let path): labels.insert(.path(path))
            }
        }
        for change in links.changes(method: method.rawValue, path: path, body: response.body) {
            labels.insert(.entity(change.recordKey))
            labels.insert(.kind(.graphQL))  // the same entity's GraphQL records changed too
        }
        await front.clear(labels, in: scope)
    }

    func recordUnusable(key: String, in scope: CacheScope) {
        front.recordUnusable()
    }
}
