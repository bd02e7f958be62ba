import CacheCore
import Foundation
import Synchronization

/// The hub's side of the second level: names, what is stored under which tags, the clears, and the counters the
/// store does not keep. One per hub; each session's REST service talks to it through a ``SecondLevelRESTAdapter``.
///
/// One L2 clear per clear: a clear made here is applied to the store here, and the same clear arriving from
/// another replica over the replication bus (applied with publishing suppressed) is not applied again.
final class SecondLevelFront: Sendable {
    let configuration: SecondLevelConfiguration
    let names: SecondLevelNames
    /// The key prefixes clears name (the domain map's and the invalidation rules'), for tagging entries.
    private let knownPrefixes: @Sendable () -> Set<String>
    private let counters = Mutex(Counters())
    /// Clears started from synchronous code (a GraphQL mutation's record changes), so shutdown can wait for them.
    let pending = BackgroundTasks()

    struct Counters {
        var unusable = 0
        var clears = 0
    }

    init(configuration: SecondLevelConfiguration, knownPrefixes: @escaping @Sendable () -> Set<String>) {
        self.configuration = configuration
        self.names = SecondLevelNames(secret: configuration.secret)
        self.knownPrefixes = knownPrefixes
    }

    var store: any SecondLevelStore { configuration.store }

    /// Whether this clear is another replica's, applied here: that replica cleared the second level already.
    static var isReplicatedClear: Bool { ReplicationCoordinator.publishingSuppressed }

    // MARK: Entries

    /// The namespaces one session reads and writes, hashed once for the session's life: its own and the shared one.
    struct SessionNamespaces: Sendable {
        let scope: CacheScope
        let session: SecondLevelNamespace
        let shared: SecondLevelNamespace

        func of(_ scope: CacheScope) -> SecondLevelNamespace? {
            scope == .shared ? shared : (scope == self.scope ? session : nil)
        }
    }

    func namespaces(for scope: CacheScope) -> SessionNamespaces {
        SessionNamespaces(scope: scope, session: names.namespace(of: scope), shared: names.namespace(of: .shared))
    }

    /// The name of an entry, with the session's namespaces hashed once.
    func key(_ kind: SecondLevelNames.Kind, _ cacheKey: String, in scope: CacheScope, _ known: SessionNamespaces)
        -> SecondLevelKey
    {
        names.key(kind, cacheKey, in: known.of(scope) ?? names.namespace(of: scope))
    }

    func tags(ofREST metadata: CacheEntryMetadata, key: String) -> [SecondLevelTag] {
        SecondLevelNames.labels(ofREST: metadata, key: key, knownPrefixes: knownPrefixes()).map(names.tag)
    }

    func recordUnusable() {
        counters.withLock { $0.unusable += 1 }
    }

    /// What one read found, decoded: an entry that does not decode is a miss, counted as unusable.
    enum Lookup<Entry> {
        case unavailable
        case miss(SecondLevelGeneration)
        case hit(Entry, SecondLevelGeneration)
    }

    /// Reads `key` with the configured deadline and decodes what it finds.
    func lookup<Entry>(_ key: SecondLevelKey, decode: ([UInt8]) -> Entry?) async -> Lookup<Entry> {
        switch await store.read(key, deadline: configuration.readDeadline) {
        case .unavailable:
            return .unavailable
        case .miss(let generation):
            return .miss(generation)
        case .hit(let bytes, let generation):
            guard let entry = decode(bytes) else {
                recordUnusable()
                return .miss(generation)
            }
            return .hit(entry, generation)
        }
    }

    /// How long the store keeps an entry stored at `storedAt` that is fresh until `expiresAt` (nil: no expiry).
    func timeToLive(storedAt: Date, expiresAt: Date?, hasValidators: Bool) -> Duration {
        let lifetime = expiresAt.map { OutsideValue.clampedDuration(seconds: $0.timeIntervalSince(storedAt)) }
        return configuration.timeToLive(lifetime: lifetime, hasValidators: hasValidators)
    }

    // MARK: Clears

    /// A whole session (logout, expiry, principal change, clear all): one command, whatever it holds.
    func clearNamespace(of scope: CacheScope) async {
        guard !Self.isReplicatedClear else { return }
        await applyNamespaceClear(of: scope)
    }

    /// ``clearNamespace(of:)`` already decided (a session ending decides when it begins).
    func applyNamespaceClear(of scope: CacheScope) async {
        counters.withLock { $0.clears += 1 }
        await store.clearNamespace(names.namespace(of: scope))
    }

    /// The entries of `scope` indexed under any of `labels`.
    func clear(_ labels: Set<SecondLevelNames.Label>, in scope: CacheScope) async {
        guard !labels.isEmpty, !Self.isReplicatedClear else { return }
        counters.withLock { $0.clears += 1 }
        await store.clearTags(labels.map(names.tag), in: names.namespace(of: scope))
    }

    /// ``clear(_:in:)`` from code that cannot wait: decided now (a replicated clear is not repeated), applied on a
    /// task of its own.
    func clearInBackground(_ labels: Set<SecondLevelNames.Label>, in scope: CacheScope) {
        guard !labels.isEmpty, !Self.isReplicatedClear else { return }
        counters.withLock { $0.clears += 1 }
        let tags = labels.map(names.tag)
        let namespace = names.namespace(of: scope)
        let store = store
        _ = pending.start { await store.clearTags(tags, in: namespace) }
    }

    /// Every namespace of the fleet at once.
    func clearAll() async {
        guard !Self.isReplicatedClear else { return }
        counters.withLock { $0.clears += 1 }
        await store.clearAll()
    }

    // MARK: Statistics

    func statistics() -> SecondLevelCacheStatistics {
        let counted = counters.withLock { $0 }
        return SecondLevelCacheStatistics(store: store.statistics(), unusable: counted.unusable, clears: counted.clears)
    }
}

/// What a hub's second level did: the store's counters plus the caches' own.
public struct SecondLevelCacheStatistics: Sendable, Equatable {
    /// The store's counters (reads, writes, bytes, latency, connection).
    public var store: SecondLevelStatistics
    /// Values found that could not be used — corrupt, truncated, of another format version, a body that no longer
    /// decodes as the request's type, or a time no replica could have written (not a date between years 1 and 9999,
    /// or a stored-at time far from this replica's clock). Each was treated as a miss.
    public var unusable: Int
    /// Clears this replica applied to the second level (clears received from other replicas are not repeated).
    public var clears: Int

    public init(store: SecondLevelStatistics, unusable: Int = 0, clears: Int = 0) {
        self.store = store
        self.unusable = unusable
        self.clears = clears
    }

    /// Reads that found a usable value.
    public var hits: Int { max(0, store.hits - unusable) }
    /// Reads that found nothing usable (unusable values included).
    public var misses: Int { store.misses + min(unusable, store.hits) }
}
