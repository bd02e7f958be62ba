import CacheCore
import GraphQLCache

extension CacheHub {
    /// Applies new settings to the running hub: timeouts and policies, the memory budget and per-session limits,
    /// the idle timeout and the bound on live sessions (sessions past the new bound or idle timeout end at once).
    /// With `clearingAffectedDomains` (default: the settings' own switch), the domains whose policy or
    /// definition changed are cleared in every live session (the seeds' scenario 8). An invalid source throws
    /// and the previous settings stay in force.
    @discardableResult
    public func reloadSettings(
        from source: SettingsSource,
        clearingAffectedDomains: Bool? = nil
    ) async throws(UnifiedCacheError) -> SettingsChange {
        let change = try settings.reload(from: source)
        let freshness = GraphQLSettingsBridge.cacheConfig(change.current, base: configuration.graphQLFreshness)
        // The core every session's client runs on takes the new rules, unless they do not validate.
        try? factory.graphQLCore.updateCacheConfig(freshness)
        if change.memoryLimitsChanged {
            try applyMemoryLimits(change.current.memory)
        }
        if change.sessionLimitsChanged {
            let endings = registry.update(Self.sessionLimits(change.current), now: clock.now())
            for ending in endings {
                _ = await terminator.begin(ending, operation: "reloadSettings(from:)").finish()
            }
        }
        guard clearingAffectedDomains ?? change.current.clearsAffectedDomainsOnChange else { return change }
        // Sessions never used have no parts, hence no data of the library's and nothing to clear.
        let live = registry.sessions.filter(\.hasMadeParts)
        // One message for the whole reload rather than one per session: receivers clear every session they hold.
        await ReplicationCoordinator.$publishingSuppressed.withValue(true) {
            for session in live {
                for domain in change.domainsToClear {
                    await session.cacheManager.clear(domain: domain.name, reason: .settingsChanged)
                }
            }
        }
        replication?.publishSettingsClear(change.domainsToClear.map(\.name.rawValue), reason: .settingsChanged)
        clearSharedAnswers(of: change.domainsToClear, reason: .settingsChanged)
        // The second level has no index across sessions: the changed domains go with everything else, fleet-wide,
        // in one command (a reload that clears domains is rare; a cold second level is the cost).
        if !change.domainsToClear.isEmpty { await secondLevel?.clearAll() }
        return change
    }

    private func applyMemoryLimits(_ limits: CacheSettings.MemoryLimits) throws(UnifiedCacheError) {
        do {
            try restStore.updateLimits(
                maxEntriesPerScope: limits.maxEntriesPerSession, maxBytesPerScope: limits.maxBytesPerSession)
            try valueStore.updateLimits(
                maxEntriesPerScope: limits.maxEntriesPerSession, maxBytesPerScope: limits.maxBytesPerSession)
            try graphQLStore.updateLimits(maxBytesPerScope: limits.maxBytesPerSession)
            try budget.updateLimit(limits.processBudgetBytes)
        } catch {
            throw UnifiedCacheError(
                code: .invalidSettings, message: "The new memory limits could not be applied.", underlying: error)
        }
    }
}
