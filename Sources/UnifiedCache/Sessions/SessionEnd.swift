import CacheCore
import CurlHTTP
import GraphQLCache
import RESTCache

/// A session on its way out. ``begin(_:operation:)`` closes its REST and GraphQL views (a handler still
/// holding the session gets a `closed` error: nothing sent, read or stored), then clears everything the library holds
/// for it at once and synchronously (both stores' scopes detached, timestamps, cookies), so from the moment a session
/// leaves the registry nothing of it is served and nothing in flight for it is stored; ``finish()`` then clears the
/// application's own session parts, which may suspend.
struct SessionEnd: Sendable {
    let session: CacheSession
    let reason: ClearReason
    private var run: ClearRun
    /// Whether ``finish()`` clears the session's second-level namespace: the session ends everywhere (not for this
    /// replica's capacity) and the end is this replica's own, not another replica's applied here.
    let clearsSecondLevel: Bool

    private init(session: CacheSession, reason: ClearReason, run: ClearRun, clearsSecondLevel: Bool) {
        self.session = session
        self.reason = reason
        self.run = run
        self.clearsSecondLevel = clearsSecondLevel
    }

    static func begin(_ ending: SessionRegistry.Ending, operation: String) -> SessionEnd {
        let session = ending.session
        let factory = session.factory
        // Closed before the clears: a request that passed the closed check before this either stores under the
        // generation the clear then bumps, or finds the session closed when it comes to store. Views made after
        // `markEnded()` read the same flag.
        let (parts, charged) = session.markEnded()
        var run = ClearRun(operation, reason: ending.reason)
        // The application may have used the scope directly, whatever parts the session made.
        DefaultUnifiedCacheManager.clearStores(
            rest: factory.restStore, graphQL: factory.graphQLStore, values: factory.values.store,
            scope: session.scope, reason: ending.reason, into: &run)
        if parts.graphQLState != nil {
            run.part("timestamps") { part in
                part.timestamps = factory.makeGraphQL(scope: session.scope, binding: session).clearTimestamps()
            }
        }
        // A jar the session made is retired first: a transfer still in flight makes no store (nor charge) after this.
        if parts.ownsCookieJar, let jar = parts.cookieJar, jar.retire() {
            factory.releaseCookieStore()
        }
        if let jar = parts.cookieJar {
            run.part("cookies") { part in
                part.cookies = jar.cookies().count
                jar.clear()
            }
        }
        parts.accounts?.forgetAll()
        factory.release(partsCharge: charged)
        let endsInSecondLevel = factory.secondLevel != nil && SessionTerminator.endsEverywhere(ending.reason)
        let clearsSecondLevel = endsInSecondLevel && !SecondLevelFront.isReplicatedClear
        if endsInSecondLevel && !clearsSecondLevel {
            // Another replica's end: it clears the second level; this one trusts no hit of the old generation.
            factory.secondLevel?.noteNamespaceCleared(of: session.scope)
        }
        return SessionEnd(session: session, reason: ending.reason, run: run, clearsSecondLevel: clearsSecondLevel)
    }

    /// Clears the application's session parts and returns the whole report.
    func finish() async -> UnifiedClearReport {
        if clearsSecondLevel { await session.factory.secondLevel?.applyNamespaceClear(of: session.scope) }
        var run = run
        await DefaultUnifiedCacheManager.clearExtraParts(
            session.factory.configuration.sessionCacheParts, sessionID: session.id, reason: reason, into: &run)
        return run.finished()
    }
}
