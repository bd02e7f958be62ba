import CacheCore
import CurlHTTP
import RESTCache

extension CacheHub {
    // MARK: Getting a session

    /// The session with this id for this verified principal, created on first use.
    ///
    /// The id comes from the client (a cookie, a header) and proves nothing by itself; the principal is who the
    /// BFF verified the request to be. When the id is live under another principal, that session ends first
    /// (everything cleared as at logout, reason `.principalChanged`) and a fresh one starts: the same id never
    /// reaches another user's data. With the same principal and new credentials (a refreshed access token),
    /// the session and its cache stay and later upstream requests carry the new credentials; requests in flight
    /// finish with what they started with, and the upstream cookie jar stays.
    ///
    /// A session idle for the settings' ``CacheSettings/SessionLimits/idleTimeoutSeconds`` has ended by the
    /// time it is asked for again (reason `.sessionExpired`), and a fresh, empty one is returned.
    public func session(
        id: String,
        principal: VerifiedPrincipal,
        credentials: APIService.Credentials
    ) -> CacheSession {
        acquire(.id(id), principal: principal, credentials: credentials)
    }

    /// The one session of this verified principal, for BFFs that keep no session id of their own: the scope is
    /// derived from the principal alone, so every request of the user shares the cache. Otherwise as
    /// ``session(id:principal:credentials:)``.
    public func session(principal: VerifiedPrincipal, credentials: APIService.Credentials) -> CacheSession {
        acquire(.principal(principal.subject), principal: principal, credentials: credentials)
    }

    /// The live session with this id, if any, without marking it used.
    public func existingSession(id: String) -> CacheSession? {
        registry.existing(.id(id))
    }

    /// The live principal-only session of this principal, if any, without marking it used.
    public func existingSession(principal: VerifiedPrincipal) -> CacheSession? {
        registry.existing(.principal(principal.subject))
    }

    /// How many sessions are live.
    public var sessionCount: Int { registry.count }

    /// Sessions started and ended, by reason.
    public func sessionStatistics() -> SessionLifecycleStatistics {
        registry.statistics
    }

    private func acquire(
        _ key: SessionKey,
        principal: VerifiedPrincipal,
        credentials: APIService.Credentials
    ) -> CacheSession {
        let lookup = registry.acquire(
            key, principal: principal, now: clock.now(), credentials: credentials, factory: factory)
        let acquired: SessionRegistry.Acquired
        switch lookup {
        case .live(let session):
            if session.refresh(credentials) {
                registry.countCredentialRefresh()
            }
            return session
        case .acquired(let found):
            acquired = found
        }
        if acquired.created {
            replication?.register(acquired.session)
            factory.chargeSession()
        } else if acquired.session.refresh(credentials) {
            registry.countCredentialRefresh()
        }
        if !acquired.endings.isEmpty {
            terminator.end(acquired.endings, operation: "session(id:principal:credentials:)")
        }
        if acquired.created, budget.isOverLimit {
            budget.reclaimExcess()
        }
        return acquired.session
    }

    // MARK: Ending sessions

    /// Ends a session at once (logout): its REST entries, GraphQL records, query timestamps, cookies and your
    /// session cache parts go, and answers still in flight for it are not stored. Returns nil when no session
    /// with this id is live.
    @discardableResult
    public func endSession(id: String, reason: ClearReason = .logout) async -> UnifiedClearReport? {
        await end(.id(id), reason: reason, operation: "endSession(id:)")
    }

    /// Ends the session with this id bound to this principal on every replica, whether or not this replica
    /// holds it: the logout a fleet needs, since a user's logout may land on a replica that never served them
    /// (or has evicted their session for capacity) while others still hold it.
    ///
    /// A live session with this id and principal here ends as with ``endSession(id:reason:)``. Either way, when
    /// the reason ends sessions everywhere (logout, expiry, principal change), the ending is published to the other
    /// replicas and the session's second-level namespace is cleared. A live session here with this id but another
    /// principal is left alone: this call cannot end someone else's session. Returns the local report, or nil
    /// when this replica held no such session.
    @discardableResult
    public func endSession(
        id: String, principal: VerifiedPrincipal, reason: ClearReason = .logout
    ) async -> UnifiedClearReport? {
        await endEverywhere(.id(id), principal: principal, reason: reason, operation: "endSession(id:principal:)")
    }

    /// Ends the principal-only session of this principal (see ``session(principal:credentials:)``) on every
    /// replica, as ``endSession(id:principal:reason:)`` does for an id-bound one. Returns the local report, or nil
    /// when this replica held no such session.
    @discardableResult
    public func endSession(principal: VerifiedPrincipal, reason: ClearReason = .logout) async -> UnifiedClearReport? {
        await endEverywhere(
            .principal(principal.subject), principal: principal, reason: reason, operation: "endSession(principal:)")
    }

    private func endEverywhere(
        _ key: SessionKey, principal: VerifiedPrincipal, reason: ClearReason, operation: String
    ) async -> UnifiedClearReport? {
        if let live = registry.existing(key), live.principal == principal,
            let report = await end(live, reason: reason, operation: operation)
        {
            return report
        }
        // Not held here: the other replicas and the second level may still hold it.
        guard SessionTerminator.endsEverywhere(reason) else { return nil }
        let scope = key.scope(for: principal)
        replication?.publish(.everything(reason: reason.replicatedName, endsSession: true), scope: scope)
        await secondLevel?.clearNamespace(of: scope)
        return nil
    }

    private func end(_ key: SessionKey, reason: ClearReason, operation: String) async -> UnifiedClearReport? {
        guard let ending = registry.remove(key, reason: reason) else { return nil }
        return await terminator.begin(ending, operation: operation).finish()
    }

    /// Ends this very session if it is still live (not a newer one under the same key).
    @discardableResult
    func end(_ session: CacheSession, reason: ClearReason, operation: String) async -> UnifiedClearReport? {
        guard let ending = registry.remove(session.key, reason: reason, only: session) else { return nil }
        return await terminator.begin(ending, operation: operation).finish()
    }

    /// Whether this session object is the live one of its key.
    func isLive(_ session: CacheSession) -> Bool {
        registry.existing(session.key) === session
    }

    /// Ends every session idle for the timeout or longer, at a cost proportional to how many end. The hub's
    /// maintenance calls it; call it yourself when the hub's clock is a `ManualCacheClock`.
    ///
    /// - Returns: how many sessions ended.
    @discardableResult
    public func expireIdleSessions() async -> Int {
        let endings = registry.removeExpired(at: clock.now())
        for ending in endings {
            _ = await terminator.begin(ending, operation: "expireIdleSessions()").finish()
        }
        return endings.count
    }

    /// Waits until the application's session parts of sessions ended in passing (expired, evicted, replaced by
    /// another principal, ended for memory) are cleared.
    public func waitForSessionEndings() async {
        await terminator.pending.drain()
    }
}
