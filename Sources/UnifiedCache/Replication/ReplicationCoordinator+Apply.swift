import CacheCore
import GraphQLCache
import RESTCache

extension ReplicationCoordinator {
    /// What applying a message came to.
    enum ApplyOutcome {
        case applied
        /// The message names a session this replica does not hold.
        case unknownSession
        /// The session it names was created here after the message was issued (beyond the skew allowance).
        case predatesSession
    }

    /// Applies another replica's clear to this hub, the way the same call would have cleared it here, to sessions
    /// that existed when it was issued (see ``concerns(issuedAt:createdAt:)``).
    func apply(_ message: ReplicationMessage, issuedAt: Int64, to hub: CacheHub) async -> ApplyOutcome {
        if case .domainsInEverySession(let names, let reason) = message.clear {
            await clearDomains(names, reason: ClearReason(replicatedName: reason), issuedAt: issuedAt, in: hub)
            return .applied
        }
        if case .valueTagsInEveryScope(let tags) = message.clear {
            await hub.valueCore.clearInEveryScope(tags: Set(tags), reason: .manual)
            return .applied
        }
        if case .dropLocalCaches = message.clear {
            let (entries, records) = await dropLocalEntries(of: hub, reason: .custom("replicationRequest"))
            observer?(.droppedLocalEntriesOnRequest(entries: entries, records: records))
            return .applied
        }
        guard let hash = message.session else { return .unknownSession }
        guard let registered = registered(forHash: hash), let session = registered.session, hub.isLive(session) else {
            // Its second-level marks are kept until a session of this name registers here.
            rememberForUnheldSession(message.clear, hash: hash, hub: hub)
            return .unknownSession
        }
        guard concerns(issuedAt: issuedAt, createdAt: registered.createdAt) else {
            // The session here began after the clear: its local entries stay, but what the clear removed from the
            // second level must not come back through it.
            noteSecondLevelClear(message.clear, in: session.scope, hub: hub)
            return .predatesSession
        }
        let manager = session.cacheManager
        switch message.clear {
        case .everything(let reason, let endsSession):
            if endsSession {
                await hub.end(session, reason: ClearReason(replicatedName: reason), operation: "replicated end")
            } else {
                await manager.clearEverything(reason: ClearReason(replicatedName: reason))
            }
        case .rest: await manager.clearRESTCache()
        case .graphQL: await manager.clearGraphQLCache()
        case .timestamps: await manager.clearTimestamps()
        case .uplifted: await manager.clearUpliftedCache()
        case .query(let query): await manager.clearCache(forQuery: query)
        case .account(let identifier): await manager.clearCache(forAccountId: identifier)
        case .domain(let name, let reason):
            guard let domain = try? CacheDomain.Name(name) else { return .applied }
            // A constant operation name: the report of a replicated clear is read by no one.
            await manager.clear(
                domain: domain, operation: "replicated clear(domain:)", reason: ClearReason(replicatedName: reason))
        case .restMutation(let method, let path, let entities):
            applyRESTMutation(method: method, path: path, entities: entities, session: session, hub: hub)
        case .graphQLMutation(let records):
            var labels = Set(records.map { SecondLevelNames.Label.entity($0) })
            labels.insert(.kind(.graphQL))
            hub.secondLevel?.noteCleared(labels, in: session.scope)
            for record in records {
                hub.graphQLStore.removeRecord(record, removingReferences: true, in: session.scope)
                hub.restStore.clear(entityKey: record, in: session.scope, reason: .mutation)
            }
        case .values(let key, let tags):
            if let key { await hub.valueCore.clear(key: key, in: session.scope, reason: .manual) }
            await hub.valueCore.clear(tags: Set(tags), in: session.scope, reason: .manual)
        case .domainsInEverySession, .dropLocalCaches, .valueTagsInEveryScope:
            break
        }
        return .applied
    }

    /// What `APIService` and the hub's entity links did on the sender after a successful REST mutation.
    private func applyRESTMutation(
        method: String, path: String, entities: [EntityChange], session: CacheSession, hub: CacheHub
    ) {
        let scope = session.scope
        let rest = session.cacheManager.rest
        let configuration = hub.configuration.rest
        for rule in configuration.invalidationRules where rule.pattern.matches(method: method, path: path) {
            for target in rule.targets { rest.invalidate(target, in: scope) }
        }
        if configuration.invalidatesOwnPath {
            rest.invalidate(.path(path), in: scope)
            if let slash = path.lastIndex(of: "/"), slash != path.startIndex {
                rest.invalidate(.path(String(path[..<slash])), in: scope)
            }
        }
        // What the sender cleared in the second level, remembered here so Redis cannot bring it back.
        hub.secondLevel?.noteCleared(
            Self.secondLevelLabels(ofRESTMutation: method, path: path, entities: entities, hub: hub), in: scope)
        for entity in entities {
            if let fields = entity.fields {
                for field in fields { hub.graphQLStore.evictField(field, ofRecord: entity.record, in: scope) }
            } else {
                hub.graphQLStore.removeRecord(entity.record, removingReferences: true, in: scope)
            }
            hub.restStore.clear(entityKey: entity.record, in: scope, reason: .mutation)
        }
    }

    private func clearDomains(_ names: [String], reason: ClearReason, issuedAt: Int64, in hub: CacheHub) async {
        let domains = names.compactMap { try? CacheDomain.Name($0) }
        hub.clearSharedAnswers(of: domains.compactMap { hub.settings.current.domainMap[$0] }, reason: reason)
        for registered in registeredSessions where concerns(issuedAt: issuedAt, createdAt: registered.createdAt) {
            guard let session = registered.session, hub.isLive(session) else { continue }
            for domain in domains { await session.cacheManager.clear(domain: domain, reason: reason) }
        }
    }

    /// Drops every local entry of every session and of the shared scope (REST entries, GraphQL records, query
    /// timestamps, the sessions' extra cache parts), bumping each scope's generation so answers in flight are not
    /// stored either. Sessions and their cookie jars stay: they are this replica's link to the upstreams, not
    /// cached answers. Returns the REST entries and GraphQL records dropped.
    func dropLocalEntries(of hub: CacheHub, reason: ClearReason) async -> (entries: Int, records: Int) {
        var entries = hub.restStore.clear(scope: .shared, reason: reason).entries
        var records = hub.graphQLStore.clear(scope: .shared, reason: reason).records
        entries += hub.valueCore.clearScope(.shared, reason: reason).entries
        for session in liveSessions where hub.isLive(session) {
            entries += hub.restStore.clear(scope: session.scope, reason: reason).entries
            records += hub.graphQLStore.clear(scope: session.scope, reason: reason).records
            entries += hub.valueCore.clearScope(session.scope, reason: reason).entries
            _ = session.graphQL.clearTimestamps()
            for part in session.cacheManager.extraParts {
                try? await part.clearAll(sessionID: session.id, reason: reason)
            }
        }
        return (entries, records)
    }
}
