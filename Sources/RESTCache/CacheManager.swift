/// One session's REST cache over the process-wide ``CacheStore`` (the seed's `CacheManager`).
///
/// Reads never cross scopes: this manager reads and writes its session's scope and, for requests that opt in,
/// the shared scope. The clearing methods serve the granular clears of the facade.
public struct CacheManager: Caching {
    /// The process-wide store.
    public let store: CacheStore
    /// This session's scope.
    public let scope: CacheScope

    /// Binds a session scope of `store`.
    public init(store: CacheStore, scope: CacheScope) {
        self.store = store
        self.scope = scope
    }

    public var defaultTimeout: Timeout { store.configuration.defaultTimeout }

    public func lookup(_ key: String, in scope: CacheScope) -> CacheLookup {
        store.lookup(key, in: scope)
    }

    public func peek(_ key: String, in scope: CacheScope) -> CacheLookup {
        store.peek(key, in: scope)
    }

    public func generation(of scope: CacheScope) -> CacheGeneration {
        store.generation(of: scope)
    }

    @discardableResult
    public func store(
        _ value: some Sendable,
        byteCost: Int,
        key: String,
        in scope: CacheScope,
        metadata: CacheEntryMetadata,
        ifGeneration generation: CacheGeneration?
    ) -> InsertOutcome {
        store.insert(value, byteCost: byteCost, key: key, scope: scope, metadata: metadata, ifGeneration: generation)
    }

    @discardableResult
    public func refresh(
        key: String,
        in scope: CacheScope,
        timeout: Timeout?,
        validators: CacheValidators?,
        ifGeneration generation: CacheGeneration?
    ) -> RefreshOutcome {
        store.refresh(key: key, scope: scope, timeout: timeout, validators: validators, ifGeneration: generation)
    }

    @discardableResult
    public func remove(key: String, in scope: CacheScope) -> Bool {
        store.remove(key: key, scope: scope)
    }

    @discardableResult
    public func invalidate(_ target: InvalidationTarget, in scope: CacheScope) -> ClearReport {
        switch target {
        case .keyPrefix(let prefix): return store.clear(keyPrefix: prefix, in: scope, reason: .mutation)
        case .domain(let domain): return store.clear(domain: domain, in: scope, reason: .mutation)
        case .account(let account): return store.clear(account: account, in: scope, reason: .mutation)
        case .entityKey(let entity): return store.clear(entityKey: entity, in: scope, reason: .mutation)
        case .path(let path):
            let tag = "path:\(path)"
            return store.clear(in: scope, reason: .mutation) { _, entry in entry.metadata.tags.contains(tag) }
        }
    }

    public func record(_ activity: CacheActivity, in scope: CacheScope) {
        store.record(activity, in: scope)
    }

    // MARK: Clearing this session's REST entries

    /// Everything of the session, uplifted entries included (logout, session expiry).
    @discardableResult
    public func clearCache(reason: ClearReason = .logout) -> ClearReport {
        store.clear(scope: scope, reason: reason)
    }

    /// The entries of one feature; uplifted entries stay unless `includeUplifted`.
    @discardableResult
    public func clearCache(domain: String, includeUplifted: Bool = false, reason: ClearReason = .manual) -> ClearReport
    {
        store.clear(domain: domain, in: scope, includeUplifted: includeUplifted, reason: reason)
    }

    /// The entries concerning one account (by id or token); uplifted entries stay unless `includeUplifted`.
    @discardableResult
    public func clearCache(account: String, includeUplifted: Bool = false, reason: ClearReason = .accountSwitch)
        -> ClearReport
    {
        store.clear(account: account, in: scope, includeUplifted: includeUplifted, reason: reason)
    }

    /// The entries whose key starts with `prefix`; uplifted entries stay unless `includeUplifted`.
    @discardableResult
    public func clearCache(keyPrefix: String, includeUplifted: Bool = false, reason: ClearReason = .manual)
        -> ClearReport
    {
        store.clear(keyPrefix: keyPrefix, in: scope, includeUplifted: includeUplifted, reason: reason)
    }

    /// The entries depending on an entity (`"Account:123"`); uplifted entries stay unless `includeUplifted`.
    @discardableResult
    public func clearCache(entityKey: String, includeUplifted: Bool = false, reason: ClearReason = .manual)
        -> ClearReport
    {
        store.clear(entityKey: entityKey, in: scope, includeUplifted: includeUplifted, reason: reason)
    }

    /// Only the uplifted entries.
    @discardableResult
    public func clearUplifted(reason: ClearReason = .manual) -> ClearReport {
        store.clearUplifted(in: scope, reason: reason)
    }

    /// Statistics of this session's REST entries.
    public func statistics() -> CacheStatistics {
        store.statistics(for: scope)
    }
}
