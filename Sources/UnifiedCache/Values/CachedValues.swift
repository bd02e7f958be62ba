import CacheCore

/// The third front door: any `Codable & Sendable` value cached per user like a REST answer, on the same memory
/// budget, clears, replication bus and sealed second level.
///
/// Obtained from ``CacheSession/values`` (the session's scope: another session never reads it) or, for values that
/// are the same for everyone, ``CacheHub/values`` (the shared scope, only when asked). The shape is get-or-set:
///
/// ```
/// let dashboard = try await session.values.value(
///     forKey: "dashboard", tags: ["accounts"], options: .init(duration: .seconds(30))
/// ) { try await composeDashboard() }
/// ```
///
/// - A fresh value in memory is returned as stored (a cast, no decode).
/// - On a miss, one factory run per key and scope serves every concurrent caller (waiters share the value or the
///   error); a caller cancelled while waiting gets `CancellationError`, the run goes on for the others.
/// - A value's entry ends with the session, and with a clear of its key or of one of its tags; a factory still
///   running then returns its value to its callers but never stores it.
/// - With a second level configured, values are sealed under the session's namespace, so a replica that starts
///   cold reads them (``ValueCacheOptions/SecondLevel/skipped`` keeps one in memory).
///
/// Views are cheap: ask the session again or keep one for a handler's calls.
public struct CachedValues: Sendable {
    @usableFromInline
    let core: ValueCore
    /// The scope the door reads and writes: the session's, or `.shared` for ``CacheHub/values``.
    public let scope: CacheScope
    /// The session bound to the door (nil for the shared scope): its closed flag stops every read and write.
    @usableFromInline
    let session: CacheSession?

    init(core: ValueCore, scope: CacheScope, session: CacheSession?) {
        self.core = core
        self.scope = scope
        self.session = session
    }

    /// The value cached under `key`, or the one `factory` makes (stored for `options.duration` under `tags`).
    ///
    /// - Parameters:
    ///   - key: names the value in the door's scope (not empty). One key holds one type at a time: reading it as
    ///     another type runs the factory and replaces it.
    ///   - tags: names a clear can reach the value by (``clear(tag:)``, ``SharedValues/clearEverywhere(tag:)``,
    ///     and the tags a cache domain names).
    ///   - options: freshness and whether the value may go to the second level.
    ///   - factory: makes the value on a miss; runs in a task of its own, so cancelling one caller does not
    ///     cancel it. A factory that never returns keeps later callers of its key waiting (cancel them, or give
    ///     the factory a deadline of its own); a clear lets the next caller start a new run.
    /// - Throws: the factory's error (to every caller waiting for that run), ``UnifiedCacheError`` with
    ///   ``UnifiedCacheError/Code/invalidValueRequest``, ``UnifiedCacheError/Code/valueNotEncodable`` or
    ///   ``UnifiedCacheError/Code/sessionEnded``, or `CancellationError` when the caller was cancelled.
    @inlinable
    public func value<Value: Codable & Sendable>(
        forKey key: String,
        tags: Set<String> = [],
        options: ValueCacheOptions = ValueCacheOptions(),
        factory: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        // The hit path, specialized in the caller for `Value`: the closed flag, one lookup, one cast.
        if let session, session.isClosed { throw ValueCore.ended }
        if case .fresh(let entry) = core.store.lookup(key, in: scope), let value = entry.value as? Value {
            if let floor = core.eagerRefreshFloor(options, tags: tags) {
                let now = core.store.clock.now()
                if CacheResilience.hasLived(floor, storedAt: entry.storedAt, expiresAt: entry.expiresAt, now: now) {
                    core.refreshEagerlyIfDue(
                        entry, as: Value.self, forKey: key, tags: tags, options: options, in: scope,
                        session: session, now: now, factory: factory)
                }
            }
            return value
        }
        return try await core.miss(
            forKey: key, tags: tags, options: options, in: scope, session: session, factory: factory)
    }

    /// Removes the value under `key` (memory and second level, every replica for a session's door); a factory
    /// still running for the scope does not store. Returns the entries removed here.
    @discardableResult
    public func clear(forKey key: String) async -> Int {
        let removed = await core.clear(key: key, in: scope, reason: .manual)
        core.replication?.link(for: scope)?.publish(.values(key: key, tags: []))
        return removed
    }

    /// Removes the door's values tagged `tag` (memory and second level, every replica for a session's door); a
    /// factory still running for the scope does not store. Returns the entries removed here.
    @discardableResult
    public func clear(tag: String) async -> Int {
        let removed = await core.clear(tags: [tag], in: scope, reason: .manual)
        core.replication?.link(for: scope)?.publish(.values(key: nil, tags: [tag]))
        return removed
    }
}

/// The value door of the shared scope (``CacheHub/values``), and the clears that reach every scope of the hub.
public struct SharedValues: Sendable {
    /// The shared scope's door: values the same for every session, shared only when asked for here.
    public let shared: CachedValues

    init(core: ValueCore) {
        shared = CachedValues(core: core, scope: .shared, session: nil)
    }

    /// ``CachedValues/value(forKey:tags:options:factory:)`` in the shared scope.
    @inlinable
    public func value<Value: Codable & Sendable>(
        forKey key: String,
        tags: Set<String> = [],
        options: ValueCacheOptions = ValueCacheOptions(),
        factory: @escaping @Sendable () async throws -> Value
    ) async throws -> Value {
        try await shared.value(forKey: key, tags: tags, options: options, factory: factory)
    }

    /// ``CachedValues/clear(forKey:)`` in the shared scope (this replica).
    @discardableResult
    public func clear(forKey key: String) async -> Int {
        await shared.clear(forKey: key)
    }

    /// ``CachedValues/clear(tag:)`` in the shared scope (this replica).
    @discardableResult
    public func clear(tag: String) async -> Int {
        await shared.clear(tag: tag)
    }

    /// Removes every value tagged `tag` in every session and the shared scope, on every replica when replication
    /// is configured (the clear travels on the sealed bus). Factories still running for those scopes do not store.
    /// With a second level, it is emptied: it has no index across sessions, and no replica may read a cleared value
    /// back from it. Returns the entries removed here.
    @discardableResult
    public func clearEverywhere(tag: String) async -> Int {
        let removed = await shared.core.clearInEveryScope(tags: [tag], reason: .manual)
        shared.core.replication?.publish(.valueTagsInEveryScope(tags: [tag]), session: nil)
        return removed
    }

    /// What the value door did on this hub.
    public func statistics() -> ValueCacheStatistics {
        shared.core.statistics()
    }
}
