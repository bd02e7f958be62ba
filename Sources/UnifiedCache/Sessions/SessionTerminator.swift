import CacheCore
import Synchronization

/// Ends sessions that left the registry: clears them at once, tells the observer, and finishes the
/// application's own parts in the background. Also the memory budget's first reclaimer: over the budget, the
/// least recently used sessions end first, whichever store holds their data, at a cost of one registry
/// operation per session ended, whatever the number of sessions.
final class SessionTerminator: MemoryReclaimer {
    let registry: SessionRegistry
    let budget: MemoryBudget
    let observer: (any CacheEventObserver)?
    let replication: ReplicationCoordinator?
    /// The application parts' clears still running, so tests and shutdown can wait for them.
    let pending = BackgroundTasks()

    init(
        registry: SessionRegistry, budget: MemoryBudget, observer: (any CacheEventObserver)?,
        replication: ReplicationCoordinator?
    ) {
        self.registry = registry
        self.budget = budget
        self.observer = observer
        self.replication = replication
    }

    /// Clears a session that left the registry; the caller awaits ``SessionEnd/finish()`` or hands it to
    /// ``finishInBackground(_:)``.
    func begin(_ ending: SessionRegistry.Ending, operation: String) -> SessionEnd {
        let span = InstrumentedOperation(ending.session.factory.configuration.instrumentation, sessionEnding: ending)
        defer { span?.end() }
        let end = SessionEnd.begin(ending, operation: operation)
        observer?.cacheDidEmit(.sessionEnded(scope: ending.session.scope, reason: ending.reason))
        if let replication {
            replication.unregister(ending.session)
            if Self.endsEverywhere(ending.reason) {
                replication.publish(
                    .everything(reason: ending.reason.replicatedName, endsSession: true), scope: ending.session.scope)
            }
        }
        return end
    }

    /// Whether other replicas end the session too. Logout, idle expiry and another principal on the id concern the
    /// user everywhere; the live-session bound and memory pressure are this replica's capacity, and the data
    /// other replicas hold for the session is still valid there.
    static func endsEverywhere(_ reason: ClearReason) -> Bool {
        switch reason {
        case .sessionEvicted, .memoryPressure: return false
        default: return true
        }
    }

    /// Ends sessions found on the way (expired, evicted, replaced by another principal) without making the
    /// caller wait for the application's parts.
    func end(_ endings: [SessionRegistry.Ending], operation: String) {
        for ending in endings {
            let end = begin(ending, operation: operation)
            if end.clearsSecondLevel || !ending.session.factory.configuration.sessionCacheParts.isEmpty {
                pending.start { _ = await end.finish() }
            }
        }
    }

    /// Ends least recently used sessions until the budget fits or one session is left.
    ///
    /// Called by the budget outside every store lock (see `MemoryBudget.reclaimExcess()`), so the stores'
    /// whole-scope clears can run here.
    func reclaim(bytes: Int) -> Int {
        let before = budget.usedBytes
        while budget.isOverLimit, let ending = registry.removeLeastRecentForMemory() {
            end([ending], operation: "memoryPressure")
        }
        return max(0, before - budget.usedBytes)
    }
}
