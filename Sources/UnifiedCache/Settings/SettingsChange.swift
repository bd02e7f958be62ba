/// What a settings reload changed, so the facade can clear exactly the data that no longer follows the settings
/// (the seeds' scenario 8) and resize what has limits.
public struct SettingsChange: Hashable, Sendable {
    /// The settings before the reload.
    public let previous: CacheSettings
    /// The settings in force now.
    public let current: CacheSettings
    /// Domains whose policy differs (a policy left out counts as `default`), sorted by name.
    public let domainsWithChangedPolicy: [CacheDomain.Name]
    /// Domains added, removed or given other members, sorted by name.
    public let domainsWithChangedDefinition: [CacheDomain.Name]
    /// Whether ``CacheSettings/defaultTimeout`` changed.
    public let defaultTimeoutChanged: Bool
    /// Whether ``CacheSettings/isTimeoutEnabled`` changed.
    public let timeoutSwitchChanged: Bool
    /// Whether any of ``CacheSettings/memory`` changed (the budget and the per-session limits).
    public let memoryLimitsChanged: Bool
    /// Whether ``CacheSettings/sessions`` changed (idle timeout, maximum of live sessions).
    public let sessionLimitsChanged: Bool

    public init(from previous: CacheSettings, to current: CacheSettings) {
        self.previous = previous
        self.current = current
        let allNames = Set(previous.domainMap.names).union(current.domainMap.names)
            .union(previous.domainPolicies.keys).union(current.domainPolicies.keys)
        domainsWithChangedPolicy = allNames.filter { previous.policy(for: $0) != current.policy(for: $0) }.sorted()
        domainsWithChangedDefinition = allNames.filter { previous.domainMap[$0] != current.domainMap[$0] }.sorted()
        defaultTimeoutChanged = previous.defaultTimeout != current.defaultTimeout
        timeoutSwitchChanged = previous.isTimeoutEnabled != current.isTimeoutEnabled
        memoryLimitsChanged = previous.memory != current.memory
        sessionLimitsChanged = previous.sessions != current.sessions
    }

    /// Whether nothing changed at all.
    public var isEmpty: Bool {
        previous == current
    }

    /// Domains whose cached data may have been stored under other rules than the current ones: a changed policy or
    /// definition; and, when the default timeout changed, the domains using it (policy `default` before or after);
    /// and, when timeouts were switched on or off, every domain that caches at all. Sorted by name.
    public var affectedDomains: [CacheDomain.Name] {
        var names = Set(domainsWithChangedPolicy).union(domainsWithChangedDefinition)
        let everyName = Set(previous.domainMap.names).union(current.domainMap.names)
        for name in everyName {
            let policies = (previous.policy(for: name), current.policy(for: name))
            if defaultTimeoutChanged, policies.0 == .default || policies.1 == .default {
                names.insert(name)
            }
            if timeoutSwitchChanged, policies.0 != .never || policies.1 != .never {
                names.insert(name)
            }
        }
        return names.sorted()
    }

    /// Whether entries outside every domain were stored under other rules too: they use the default timeout, so
    /// they are affected when it or the timeout switch changed. Only a full clear reaches them.
    public var affectsEntriesOutsideDomains: Bool {
        defaultTimeoutChanged || timeoutSwitchChanged
    }

    /// What to clear for the affected domains: for each, the previous and the current definition together, so
    /// entries selected by a member that was just removed go as well. Sorted by name.
    public var domainsToClear: [CacheDomain] {
        affectedDomains.compactMap { name in
            switch (previous.domainMap[name], current.domainMap[name]) {
            case (let old?, let new?): return old == new ? new : new.merging(old)
            case (let old?, nil): return old
            case (nil, let new?): return new
            case (nil, nil): return nil
            }
        }
    }
}
