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

    init(front: SecondLevelFront, links: EntityLinks, scope: CacheScope, session: SecondLevelNamespace) {
        self.front = front
        self.links = links
        self.namespaces = front.namespaces(for: scope, session: session)
    }

    var backend: CacheBackendDescription { front.store.backend }

    func read(key: String, in scope: CacheScope) async -> RESTSecondLevelRead {
        let name = front.key(.rest, key, in: scope, namespaces)
        let dating = SecondLevelFront.Dating<RESTSecondLevelEntry>(
            storedAt: \.storedAt, carries: { Self.carries($0, $1, key: key) })
        return await front.lookup(name, kind: .rest, decode: SecondLevelEntryCodec.decode, dating: dating)
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
        for target in targets { labels.insert(SecondLevelNames.Label(target)) }
        for change in links.changes(method: method.rawValue, path: path, body: response.body) {
            labels.insert(.entity(change.recordKey))
            labels.insert(.kind(.graphQL))  // the same entity's GraphQL records changed too
        }
        await front.clear(labels, in: scope)
    }

    /// Whether `entry`, stored under the memory key `key`, is indexed under `label` (what
    /// ``SecondLevelNames/labels(ofREST:key:knownPrefixes:)`` gave it; a key prefix is taken as carried whenever the
    /// key starts with it, which only refuses more).
    static func carries(_ entry: RESTSecondLevelEntry, _ label: SecondLevelNames.Label, key: String) -> Bool {
        let metadata = entry.metadata
        switch label {
        case .kind(let kind): return kind == .rest
        case .uplifted: return metadata.isUplifted
        case _ where metadata.isUplifted: return false
        case .domain(let domain): return metadata.domains.contains(domain)
        case .account(let account): return metadata.accounts.contains(account)
        case .entity(let entity): return metadata.entityKeys.contains(entity)
        case .path(let path): return metadata.tags.contains("path:" + path)
        case .keyPrefix(let prefix): return key.hasPrefix(prefix)
        case .operation, .valueTag, .valueKey: return false
        }
    }

    func recordUnusable(key: String, in scope: CacheScope) {
        front.recordUnusable()
    }
}
