import CacheCore
import RESTCache

extension ReplicationCoordinator {
    /// What another replica's clear of one session removed from that session's second level: its whole namespace,
    /// some labels, or nothing (`nil`: timestamps, or a clear that is not of one session).
    func secondLevelClear(of clear: ReplicatedClear, hub: CacheHub) -> PendingClearMarks.Clear? {
        let labels: Set<SecondLevelNames.Label>
        switch clear {
        case .everything:
            return .namespace
        case .account:
            // The sender cleared the account under every alias its session knew; those are not known here.
            return .namespace
        case .rest:
            labels = [.kind(.rest)]
        case .graphQL, .query:
            labels = [.kind(.graphQL)]
        case .uplifted:
            labels = [.uplifted]
        case .domain(let name, _):
            // A domain this replica's settings do not name: the sender's may; the whole namespace is safe.
            guard let name = try? CacheDomain.Name(name), let domain = hub.settings.current.domainMap[name] else {
                return .namespace
            }
            labels = domain.secondLevelLabels
        case .restMutation(let method, let path, let entities):
            labels = Self.secondLevelLabels(ofRESTMutation: method, path: path, entities: entities, hub: hub)
        case .graphQLMutation(let records):
            labels = Set(records.map { SecondLevelNames.Label.entity($0) }).union([.kind(.graphQL)])
        case .values(let key, let tags):
            labels = Set(tags.map { .valueTag($0) } + (key.map { [.valueKey($0)] } ?? []))
        case .timestamps, .domainsInEverySession, .dropLocalCaches, .valueTagsInEveryScope:
            return nil
        }
        return labels.isEmpty ? nil : .labels(labels)
    }

    /// Marks what `clear` removed from the second level of `scope`, as the same clear applied here would have.
    func noteSecondLevelClear(_ clear: ReplicatedClear, in scope: CacheScope, hub: CacheHub) {
        guard let front = hub.secondLevel else { return }
        switch secondLevelClear(of: clear, hub: hub) {
        case .namespace: front.noteNamespaceCleared(of: scope)
        case .labels(let labels): front.noteCleared(labels, in: scope)
        case nil: break
        }
    }

    /// A clear of the session named `hash`, which this replica does not hold: its second-level marks are kept (see
    /// ``PendingClearMarks``) until a session of that name registers. A session registered under that name in the
    /// meantime (or held but no longer live) gets them at once.
    func rememberForUnheldSession(_ clear: ReplicatedClear, hash: String, hub: CacheHub) {
        guard let front = hub.secondLevel, let effect = secondLevelClear(of: clear, hub: hub) else { return }
        let mark = front.clearMark()
        let outcome = state.withLock { state -> (scope: CacheScope?, everything: SecondLevelClearMarks.Mark?) in
            if let name = SessionWireName(hash), let session = state.sessions[name]?.session {
                return (session.scope, nil)
            }
            return (nil, state.pendingMarks?.record(effect, hash: hash, mark))
        }
        if let everything = outcome.everything { front.marks.markEverything(everything) }
        guard let scope = outcome.scope else { return }
        var owed = PendingClearMarks.Entry()
        owed.add(effect, mark)
        front.adopt(owed, for: scope)
    }

    /// What a REST mutation cleared in a session's second level on the sender: the targets of the invalidation rules
    /// it matches, its own path and parent (when configured), and the entities it changed.
    static func secondLevelLabels(
        ofRESTMutation method: String, path: String, entities: [EntityChange], hub: CacheHub
    ) -> Set<SecondLevelNames.Label> {
        let configuration = hub.configuration.rest
        var labels: Set<SecondLevelNames.Label> = []
        for rule in configuration.invalidationRules where rule.pattern.matches(method: method, path: path) {
            for target in rule.targets { labels.insert(SecondLevelNames.Label(target)) }
        }
        if configuration.invalidatesOwnPath {
            labels.insert(.path(path))
            if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
                labels.insert(.path(String(path[..<slash])))
            }
        }
        for entity in entities {
            labels.insert(.entity(entity.record))
            labels.insert(.kind(.graphQL))
        }
        return labels
    }
}
