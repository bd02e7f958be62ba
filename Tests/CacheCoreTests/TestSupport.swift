import CacheCore
import Synchronization

/// A store on a manual clock with small limits unless a test says otherwise.
func makeStore(
    clock: ManualCacheClock = ManualCacheClock(),
    budget: MemoryBudget? = nil,
    observer: (any CacheEventObserver)? = nil,
    configure: (inout CacheStore.Configuration) -> Void = { _ in }
) throws -> CacheStore {
    var configuration = CacheStore.Configuration(entryOverhead: 0, stripeCount: 4)
    configure(&configuration)
    return try CacheStore(configuration: configuration, clock: clock, budget: budget, observer: observer)
}

/// Collects events for later inspection.
final class EventRecorder: CacheEventObserver {
    private let recorded = Mutex<[CacheEvent]>([])

    func cacheDidEmit(_ event: CacheEvent) {
        recorded.withLock { $0.append(event) }
    }

    var events: [CacheEvent] {
        recorded.withLock { $0 }
    }

    func reset() {
        recorded.withLock { $0.removeAll() }
    }
}

extension CacheLookup {
    var isFresh: Bool {
        if case .fresh = self { return true }
        return false
    }

    var isStale: Bool {
        if case .stale = self { return true }
        return false
    }

    var isMiss: Bool {
        if case .miss = self { return true }
        return false
    }

    /// The value as a String, fresh or stale.
    var string: String? {
        entry?.value as? String
    }
}

extension CacheStore {
    /// Inserts a string value costing its UTF-8 length.
    @discardableResult
    func put(
        _ value: String,
        _ key: String,
        in scope: CacheScope,
        _ metadata: CacheEntryMetadata = CacheEntryMetadata(),
        ifGeneration generation: CacheGeneration? = nil
    ) -> InsertOutcome {
        insert(value, byteCost: value.utf8.count, key: key, scope: scope, metadata: metadata, ifGeneration: generation)
    }

    /// Keys held, sorted, for order-independent comparisons.
    func sortedKeys(in scope: CacheScope) -> [String] {
        keys(in: scope).sorted()
    }
}

let alice = CacheScope.session("alice")
let bob = CacheScope.session("bob")
